import { implementTool, ToolFailure, type ToolImplementation } from 'durable-agents/worker';
import { addToWatchlistTool, getQuoteTool, removeFromWatchlistTool } from './agent';

function currentWatchlist(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : [];
}

/** Offline demo prices: deterministic per symbol, so the demo output is reproducible. */
export function demoPrice(symbol: string): number {
  let h = 7;
  for (const c of symbol) h = (h * 31 + c.charCodeAt(0)) % 100_000;
  return Math.round((20 + (h % 48_000) / 100) * 100) / 100;
}

/** Implementations of the watchlist tools. */
export function watchlistImplementations(): ToolImplementation[] {
  return [
    implementTool(addToWatchlistTool, ({ symbols }, ctx) => {
      const watchlist = currentWatchlist(ctx.session.get('watchlist'));
      const added = symbols.filter((s) => !watchlist.includes(s));
      const next = [...watchlist, ...added];
      ctx.session.set('watchlist', next);
      return { added, watchlist: next };
    }),
    implementTool(removeFromWatchlistTool, ({ symbols }, ctx) => {
      const watchlist = currentWatchlist(ctx.session.get('watchlist'));
      const next = watchlist.filter((s) => !symbols.includes(s));
      ctx.session.set('watchlist', next);
      return { removed: watchlist.filter((s) => symbols.includes(s)), watchlist: next };
    }),
    implementTool(getQuoteTool, ({ symbol }) => {
      if (symbol === 'ZZZZ') {
        throw new ToolFailure(`${symbol} is not a listed symbol`, {
          type: 'unknown_symbol',
          retryable: false,
          retryHint: { reason: 'invalid_arguments', tool: 'get_quote', message: 'use a listed ticker' },
        });
      }
      return { symbol, price: demoPrice(symbol), currency: 'USD' };
    }),
  ];
}
