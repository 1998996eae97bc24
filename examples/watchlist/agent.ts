import { z } from 'zod';
import {
  builtOnce,
  createScriptedPlanner,
  defineAgent,
  defineLlmAgent,
  defineTool,
  type JsonValue,
  type Planner,
  type PlannerContext,
  type PlanResult,
  type ToolOutput,
} from 'durable-agents/workflow';

// Tool schemas are given as builders (defineTool calls one when the schema is first read):
// workflow code is evaluated again for every run, and a run builds only the schemas it uses
// (docs/agents-and-tools.md, "Tools"). The ticker is shared by three tools, so it is built once (builtOnce); the
// structured-output schema below is a z.lazy for the same reason as the builders.
const symbolSchema = builtOnce(() => z.string().regex(/^[A-Z]{1,5}$/, 'a ticker is 1-5 capital letters, e.g. AAPL'));

/** Adds symbols to the watchlist kept in session state (seed 003). */
export const addToWatchlistTool = defineTool({
  name: 'add_to_watchlist',
  description: "Add stock symbols to the user's watchlist. Requires confirmation.",
  requiresConfirmation: true,
  sessionKeys: ['watchlist'],
  input: () => z.object({ symbols: z.array(symbolSchema()).min(1) }),
  output: () => z.object({ added: z.array(z.string()), watchlist: z.array(z.string()) }),
  // Every tool heartbeats on its own while it runs: a call whose worker died is retried on another
  // within 5 s instead of after its 60 s timeout (docs/agents-and-tools.md, "Tools").
  heartbeatTimeoutMs: 5_000,
});

/** Removes symbols from the watchlist. */
export const removeFromWatchlistTool = defineTool({
  name: 'remove_from_watchlist',
  description: "Remove stock symbols from the user's watchlist.",
  sessionKeys: ['watchlist'],
  input: () => z.object({ symbols: z.array(symbolSchema()).min(1) }),
  output: () => z.object({ removed: z.array(z.string()), watchlist: z.array(z.string()) }),
  heartbeatTimeoutMs: 5_000,
});

/** Looks up a quote (offline demo data). */
export const getQuoteTool = defineTool({
  name: 'get_quote',
  description: 'Get the latest price of a stock symbol.',
  sessionKeys: [],
  // A read: LLM runs with earlyDispatch start it while the model is still answering.
  startEarly: true,
  input: () => z.object({ symbol: symbolSchema() }),
  output: () => z.object({ symbol: z.string(), price: z.number(), currency: z.string() }),
  heartbeatTimeoutMs: 5_000,
});

const stopWords = new Set(['I', 'A', 'AND', 'THE', 'TO', 'MY', 'OF', 'ADD', 'OK']);

/** Ticker-like words (2-5 capitals) in a message, in order, without repeats. */
export function extractSymbols(text: string): string[] {
  const found = text.match(/\b[A-Z]{2,5}\b/g) ?? [];
  return [...new Set(found.filter((s) => !stopWords.has(s)))];
}

function watchlistOf(ctx: PlannerContext): string[] {
  const list = ctx.sessionState.watchlist;
  return Array.isArray(list) ? list.filter((s): s is string => typeof s === 'string') : [];
}

function summarize(outputs: readonly ToolOutput[], watchlist: string[]): string {
  const quotes = outputs
    .filter((o) => o.name === 'get_quote')
    .map((o) => {
      const q = o.result as { symbol?: JsonValue; price?: JsonValue } | undefined;
      return o.status === 'ok' && q ? `${String(q.symbol)} ${String(q.price)}` : `${String((o.args as { symbol?: string }).symbol)} unavailable`;
    });
  const list = watchlist.length ? watchlist.join(', ') : '(empty)';
  return quotes.length ? `Your watchlist: ${list}. Latest prices: ${quotes.join('; ')}.` : `Your watchlist: ${list}.`;
}

/**
 * A rule-based, deterministic planner for the watchlist agent: it reads tickers and intent
 * (add / remove / show) from the user's message, changes the watchlist, quotes every symbol
 * on it in parallel, and summarises. No model needed, so the demo runs offline.
 */
export function createWatchlistPlanner(): Planner {
  return {
    planStart: (input, ctx): PlanResult => {
      const last = [...input.messages].reverse().find((m) => m.role === 'user');
      const text = last && last.role === 'user' ? last.content : '';
      const symbols = extractSymbols(text);
      const intent = /\bremove\b|\bdelete\b|\bdrop\b/i.test(text) ? 'remove' : /\badd\b|\bwatch\b|\btrack\b/i.test(text) ? 'add' : 'show';
      ctx.emitNote({ text: `intent=${intent} symbols=${symbols.join(',') || '-'}`, labels: { planner: 'watchlist-rules' } });
      if (intent !== 'show' && symbols.length === 0) {
        return { type: 'final', response: { text: 'Which ticker symbols (e.g. AAPL, MSFT) do you mean?' } };
      }
      if (intent === 'show') return quoteAll(watchlistOf(ctx));
      const tool = intent === 'add' ? addToWatchlistTool : removeFromWatchlistTool;
      ctx.state.set('phase', 'changed');
      return { type: 'tool_calls', calls: [{ name: tool.name, args: { symbols } }] };
    },
    planResume: (input, ctx): PlanResult => {
      const watchlist = watchlistOf(ctx);
      if (input.finalize) {
        return { type: 'final', response: { text: `${summarize(input.toolOutputs, watchlist)} (stopped early: ${input.finalize.message})` } };
      }
      if (ctx.state.get('phase') === 'changed') {
        ctx.state.set('phase', 'quoted');
        return quoteAll(watchlist);
      }
      return { type: 'final', response: { text: summarize(input.lastOutputs, watchlist) } };
    },
  };
}

function quoteAll(watchlist: string[]): PlanResult {
  if (watchlist.length === 0) return { type: 'final', response: { text: 'Your watchlist is empty.' } };
  return { type: 'tool_calls', calls: watchlist.map((symbol) => ({ name: getQuoteTool.name, args: { symbol } })) };
}

/** The demo agent of the README: a stock watchlist kept in session state. */
export const watchlistAgent = defineAgent({
  name: 'watchlist',
  description: "Keeps the user's stock watchlist and quotes it.",
  instructions: "You MUST use the add_to_watchlist tool when the user asks to add a stock. The user's watchlist is: {watchlist}",
  tools: [addToWatchlistTool, removeFromWatchlistTool, getQuoteTool],
  createPlanner: createWatchlistPlanner,
});

/**
 * The watchlist tools and instructions driven by a script (plannerOptions): reproduces seed
 * 003 step by step in tests, without a model.
 */
export const scriptedWatchlistAgent = defineAgent({
  ...watchlistAgent,
  name: 'watchlist-scripted',
  description: 'The watchlist agent, planned by a script.',
  createPlanner: createScriptedPlanner,
});

/**
 * The watchlist agent planned by a model (seed 003, OpenAI Chat Completions): the same tools
 * and instructions, with `{watchlist}` rendered from session state on every turn. The model
 * may ask the user a clarifying question (the run then waits on an await barrier).
 */
export const watchlistLlmAgent = defineLlmAgent({
  name: 'watchlist-llm',
  description: "Keeps the user's stock watchlist and quotes it, planned by a model.",
  instructions: watchlistAgent.instructions,
  tools: watchlistAgent.tools,
  llm: { model: 'gpt-4o-mini', humanTools: { clarification: true } },
});

/** The structured answer of `watchlist-llm-report`. */
export const watchlistReportSchema = z.lazy(() =>
  z.object({
    watchlist: z.array(z.string()),
    quotes: z.array(z.object({ symbol: z.string(), price: z.number() })),
    summary: z.string(),
  }),
);

/** The model-planned watchlist agent whose final answer is a validated {@link watchlistReportSchema} report. */
export const watchlistReportAgent = defineLlmAgent({
  name: 'watchlist-llm-report',
  description: 'Quotes the watchlist and answers with a structured report, planned by a model.',
  instructions: watchlistAgent.instructions,
  tools: watchlistAgent.tools,
  llm: {
    model: 'gpt-4o-mini',
    outputSchema: { name: 'watchlist_report', description: 'The watchlist with the latest quotes.', schema: watchlistReportSchema },
  },
});

/** The agents of this example, for its workflows module and its worker. */
export const watchlistAgents = [watchlistAgent, scriptedWatchlistAgent, watchlistLlmAgent, watchlistReportAgent];
