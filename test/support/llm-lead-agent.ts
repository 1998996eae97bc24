/**
 * A model-planned agent whose only tool runs the model-planned watchlist agent as a sub-agent
 * run: an LLM parent and an LLM child, for evaluating a run with its tree (definitions only,
 * bundled).
 */
import { defineAgentTool, defineLlmAgent } from 'durable-agents/workflow';

/** Hands a task to `watchlist-llm`. */
const askWatchlist = defineAgentTool({
  name: 'ask_watchlist',
  description: 'Ask the watchlist agent, which quotes stocks and keeps the watchlist.',
  agent: 'watchlist-llm',
});

export const llmLeadAgent = defineLlmAgent({
  name: 'llm-lead',
  description: 'Answers questions about stocks by asking the watchlist agent, planned by a model.',
  instructions: 'Ask the watchlist agent with ask_watchlist, then answer from what it said.',
  tools: [askWatchlist],
  llm: { model: 'gpt-4o-mini' },
});
