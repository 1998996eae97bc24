/**
 * The test suite's workflows module: both examples' agents in one bundle, with compact tool
 * inputs, so the integration suites run every tool call through them (the examples, the MCP
 * suite and the package test keep the default full inputs).
 */
import { createAgentWorkflows } from 'durable-agents/workflow';
import { testAgents } from './agents';

export const { agentRun, agentSession, agentScheduledMessage, agentTenantAccount } = createAgentWorkflows({ agents: testAgents, compactToolInputs: true });
