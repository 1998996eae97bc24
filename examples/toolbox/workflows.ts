/** The toolbox example's workflows module: the worker's `workflowsPath`. */
import { createAgentWorkflows } from 'durable-agents/workflow';
import { toolboxAgents } from './agent';

export const { agentRun, agentSession, agentScheduledMessage, agentTenantAccount } = createAgentWorkflows({ agents: toolboxAgents });
