/**
 * A scripted agent whose tool runs the model-planned watchlist agent as a sub-agent run: the
 * money suite checks that a parent's cost budget bounds its child's (definitions only, bundled).
 */
import { createScriptedPlanner, defineAgent, defineAgentTool } from 'durable-agents/workflow';

/** Hands a task to `watchlist-llm`, whose budget is what the parent has left. */
const askQuoter = defineAgentTool({
  name: 'ask_quoter',
  description: 'Ask the model-planned watchlist agent.',
  agent: 'watchlist-llm',
});

export const llmDelegatorAgent = defineAgent({
  name: 'llm-delegator',
  description: 'Follows its script; ask_quoter runs the model-planned watchlist agent.',
  tools: [askQuoter],
  createPlanner: createScriptedPlanner,
});
