/** The workflows module of release 1 of the `release` agent. */
import { createAgentWorkflows } from 'durable-agents/workflow';
import { releaseAgentV1 } from './agents';

export const { agentRun, agentSession } = createAgentWorkflows({ agents: [releaseAgentV1] });
