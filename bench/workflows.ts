/**
 * The benchmark's workflows module: only the agents it runs (as a user's bundle would), with
 * compact tool inputs, as a fleet whose workers all run this version would set them; with the
 * tenants' accounts, for the benchmarks whose worker has a tenants file.
 */
import { createAgentWorkflows } from 'durable-agents/workflow';
import { benchAgents } from './agents';

export const { agentRun, agentSession, agentTenantAccount } = createAgentWorkflows({ agents: benchAgents, compactToolInputs: true });
