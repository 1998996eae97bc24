/** The watchlist example's workflows module: the worker's `workflowsPath`. */
import { createAgentWorkflows } from 'durable-agents/workflow';
import { watchlistAgents } from './agent';

export const { agentRun, agentSession, agentScheduledMessage, agentTenantAccount } = createAgentWorkflows({ agents: watchlistAgents });
