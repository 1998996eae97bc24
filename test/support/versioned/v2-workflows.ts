/** The workflows module of release 2 of the `release` agent. */
import { createAgentWorkflows } from 'durable-agents/workflow';
import { releaseAgentV2 } from './agents';

export const { agentRun, agentSession } = createAgentWorkflows({ agents: [releaseAgentV2] });
