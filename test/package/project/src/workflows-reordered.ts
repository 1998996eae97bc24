import { createAgentWorkflows } from 'durable-agents/workflow';
import { reorderedNotesAgent } from './agent';

export const { agentRun, agentSession } = createAgentWorkflows({ agents: [reorderedNotesAgent] });
