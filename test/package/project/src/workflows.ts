import { createAgentWorkflows } from 'durable-agents/workflow';
import { notesAgent } from './agent';

export const { agentRun, agentSession } = createAgentWorkflows({ agents: [notesAgent] });
