/** A workflows module with two agents whose tools share a name. */
import { createAgentWorkflows } from 'durable-agents/workflow';
import { docsAgent, webAgent } from './agents';

export const { agentRun, agentSession } = createAgentWorkflows({ agents: [docsAgent, webAgent] });
