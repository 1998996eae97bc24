/** The workflows module of the MCP tests' agents. */
import { createAgentWorkflows } from 'durable-agents/workflow';
import { mcpAgents } from './agents';

export const { agentRun, agentSession } = createAgentWorkflows({ agents: mcpAgents });
