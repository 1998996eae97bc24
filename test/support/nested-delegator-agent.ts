/**
 * A scripted agent whose tool runs the delegator, which runs the scripted agent in turn: three
 * levels of sub-agent runs, for the tree views (definitions only, bundled).
 */
import { z } from 'zod';
import { createScriptedPlanner, defineAgent, defineAgentTool } from 'durable-agents/workflow';

/** Hands a task to the delegator, whose script (`steps`) may delegate again. */
const delegateToDelegator = defineAgentTool({
  name: 'delegate_to_delegator',
  description: 'Hand a task to the delegator, which follows the given steps.',
  agent: 'delegator',
  input: () => z.object({ task: z.string().min(1), steps: z.array(z.unknown()).min(1) }),
  toRun: ({ task, steps }) => ({ prompt: task, plannerOptions: { steps } }),
  allowance: { maxToolCalls: 10 },
});

export const nestedDelegatorAgent = defineAgent({
  name: 'nested-delegator',
  description: 'Follows its script; delegate_to_delegator runs the delegator as a sub-agent.',
  tools: [delegateToDelegator],
  createPlanner: createScriptedPlanner,
});
