/**
 * A changed watchlist agent for evaluation tests: after adding or removing symbols it answers at
 * once instead of quoting the watchlist. Evaluated against the example's recorded runs, it chooses
 * other tools (none) at the turn where the recording quoted.
 */
import { defineAgent, type Planner } from 'durable-agents/workflow';
import { createWatchlistPlanner, watchlistAgent } from '../../../examples/watchlist/agent';

function answerWithoutQuotes(): Planner {
  const planner = createWatchlistPlanner();
  return {
    planStart: planner.planStart,
    planResume: (input, ctx) => {
      if (input.finalize || ctx.state.get('phase') !== 'changed') return planner.planResume(input, ctx);
      return { type: 'final', response: { text: 'Done.' } };
    },
  };
}

export const watchlistWithoutQuotes = defineAgent({ ...watchlistAgent, createPlanner: answerWithoutQuotes });
