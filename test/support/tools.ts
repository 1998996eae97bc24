/** Implementations of the test agents' tools (worker side; see ./agents for the definitions). */
import { implementTool, ToolFailure, type ToolImplementation } from 'durable-agents/worker';
import { setTimeout as delay } from 'node:timers/promises';
import { garbleTool, lingerTool, quickTool, shoutTool } from './faulty-agent';
import { addSymbolTool } from './local-llm-agent';
import { MemorySideEffectSink, toolboxImplementations, type SideEffectSink } from '../../examples/toolbox/tools';
import { watchlistImplementations } from '../../examples/watchlist/tools';

/** Ids of `linger` calls that finished stopping after their cancellation (in-process workers). */
export const stoppedLingerCalls = new Set<string>();

/** Worker-side dependencies of the test agents' tools. */
export interface AgentToolDependencies {
  readonly sideEffects?: SideEffectSink;
}

/** Implementations of every tool of every test agent. */
export function allToolImplementations(deps: AgentToolDependencies = {}): ToolImplementation[] {
  return [
    ...toolboxImplementations(deps.sideEffects ?? new MemorySideEffectSink()),
    ...watchlistImplementations(),
    implementTool(shoutTool, ({ text }) => text.toUpperCase()),
    implementTool(addSymbolTool, ({ symbol }, ctx) => {
      const current = ctx.session.get('watchlist');
      const list = Array.isArray(current) ? current.filter((s): s is string => typeof s === 'string') : [];
      const watchlist = list.includes(symbol) ? list : [...list, symbol];
      ctx.session.set('watchlist', watchlist);
      return { added: symbol, watchlist };
    }),
    implementTool(garbleTool, ({ mode }) => {
      const lone = `upstream said ${String.fromCharCode(0xd800)} and ${String.fromCharCode(0xdc00)}`;
      if (mode === 'result') return { text: lone, nested: [{ [lone]: lone }] };
      if (mode === 'tool_failure') throw new ToolFailure(lone, { type: `bad${String.fromCharCode(0xdbff)}`, retryable: false, retryHint: { reason: 'tool_unavailable', message: lone } });
      const err = new Error(lone, { cause: new Error(lone) });
      err.name = `Upstream${String.fromCharCode(0xdfff)}Error`;
      throw err;
    }),
    implementTool(quickTool, ({ text }, ctx) => ({ reversed: [...text].reverse().join(''), key: ctx.idempotencyKey })),
    implementTool(lingerTool, async ({ stopMs }, ctx) => {
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      await delay(stopMs);
      stoppedLingerCalls.add(ctx.toolCallId);
      throw new Error('stopped');
    }),
  ];
}
