/**
 * `watchlist-llm` whose model activity heartbeats every second and is retried after 2 s without
 * one: tests that kill worker processes mid model call see the call retried elsewhere at once
 * instead of after the default 30 s. Definitions only: bundled into the sandbox.
 */
import { watchlistLlmAgent } from '../../examples/watchlist/agent';
import { defineLlmAgent } from '../../workflows/planners/llm';

export const quickLlmAgent = defineLlmAgent({
  name: 'watchlist-llm-quick',
  description: 'watchlist-llm with a 2 s model heartbeat timeout (worker-kill tests).',
  instructions: watchlistLlmAgent.instructions,
  tools: watchlistLlmAgent.tools,
  llm: { model: 'gpt-4o-mini', activity: { heartbeatTimeoutMs: 2_000, initialIntervalMs: 100 } },
});
