/**
 * The agent catalogue of the workflow bundle. Deterministic code only: imported by
 * `workflows/index.ts`, so every agent here is registered identically on every replay.
 */
import { registerAgent } from '../workflows/agent-registry';
import { guardedAgent, scriptedAgent } from './toolbox/definition';
import { scriptedWatchlistAgent, watchlistAgent, watchlistLlmAgent, watchlistReportAgent } from './watchlist/definition';

registerAgent(scriptedAgent);
registerAgent(guardedAgent);
registerAgent(watchlistAgent);
registerAgent(scriptedWatchlistAgent);
registerAgent(watchlistLlmAgent);
registerAgent(watchlistReportAgent);

export { guardedAgent, scriptedAgent, scriptedWatchlistAgent, watchlistAgent, watchlistLlmAgent, watchlistReportAgent };
