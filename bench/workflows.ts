/**
 * The benchmark's workflows module: only the agents it runs (as a user's bundle would), with
 * compact tool inputs, as a fleet whose workers all run this version would set them.
 */
import { createAgentWorkflows } from 'durable-agents/workflow';
import { benchAgents } from './agents';

export const { agentRun, agentSession } = createAgentWorkflows({ agents: benchAgents, compactToolInputs: true });
