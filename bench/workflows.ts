/**
 * The benchmark's workflows module: only the agent it runs (as a user's bundle would), with
 * compact tool inputs, as a fleet whose workers all run this version would set them.
 */
import { createAgentWorkflows } from 'durable-agents/workflow';
import { scriptedAgent } from '../examples/toolbox/agent';

export const { agentRun, agentSession } = createAgentWorkflows({ agents: [scriptedAgent], compactToolInputs: true });
