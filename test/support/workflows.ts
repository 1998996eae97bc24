/** The test suite's workflows module: both examples' agents in one bundle. */
import { createAgentWorkflows } from 'durable-agents/workflow';
import { testAgents } from './agents';

export const { agentRun, agentSession } = createAgentWorkflows({ agents: testAgents });
