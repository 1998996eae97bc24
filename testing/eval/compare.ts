import type { FinalResponse, JsonValue, RunResult } from '../../contracts';
import { callKey } from './recorded-tools';
import type { TurnStep } from './recording';

/** Where a candidate first acted differently from the recording. */
export interface Divergence {
  /** The turn (as the runs number them) where they part. */
  readonly turn: number;
  /**
   * `tool_choice`: other tools (or tools where the recording answered, or an answer where it
   * called tools); `arguments`: the same tools with other arguments.
   */
  readonly kind: 'tool_choice' | 'arguments';
  readonly recorded: readonly { readonly name: string; readonly args: JsonValue }[];
  readonly candidate: readonly { readonly name: string; readonly args: JsonValue }[];
  /** One line for people: e.g. `turn 2: get_quote {"symbol":"AAPL"} → get_quote {"symbol":"MSFT"}`. */
  readonly summary: string;
}

/** Turns, calls, tokens and cost of one run, from its result's cost report. */
export interface RunTotals {
  readonly turns: number;
  readonly toolCalls: number;
  readonly modelCalls: number;
  readonly tokens: number;
  /** Absent when no price table priced the run's model calls. */
  readonly cost?: { readonly amount: number; readonly currency: string };
}

function describeCalls(calls: TurnStep['calls'], text?: string): string {
  if (calls.length === 0) return text === undefined ? '(nothing)' : 'final answer';
  return calls.map((c) => `${c.name} ${JSON.stringify(c.args)}`).join(', ');
}

function names(calls: TurnStep['calls']): string {
  return calls
    .map((c) => c.name)
    .sort()
    .join(',');
}

function keys(calls: TurnStep['calls']): string {
  return calls
    .map((c) => callKey(c.name, c.args))
    .sort()
    .join('\u0001');
}

/**
 * The first turn where the candidate's decision differs from the recorded one: other tools
 * (`tool_choice`, which includes answering where the recording called tools and the other way
 * round), or the same tools with other arguments (`arguments`). Calls of one turn are compared
 * as a set (their order within a plan does not matter). Undefined when every turn matches.
 *
 * @example
 * declare const recorded: RunSide, candidate: RunSide;
 * firstDivergence(recorded.steps, candidate.steps)?.summary; // 'turn 1: get_quote {"symbol":"AAPL"} → get_quote {"symbol":"MSFT"}'
 */
export function firstDivergence(recorded: readonly TurnStep[], candidate: readonly TurnStep[]): Divergence | undefined {
  const count = Math.max(recorded.length, candidate.length);
  for (let i = 0; i < count; i++) {
    const r = recorded[i];
    const c = candidate[i];
    const rCalls = r?.calls ?? [];
    const cCalls = c?.calls ?? [];
    const turn = r?.turn ?? c?.turn ?? i;
    const summary = `turn ${turn}: ${describeCalls(rCalls, r?.text)} → ${describeCalls(cCalls, c?.text)}`;
    if (!r || !c || names(rCalls) !== names(cCalls)) return { turn, kind: 'tool_choice', recorded: rCalls, candidate: cCalls, summary };
    if (keys(rCalls) !== keys(cCalls)) return { turn, kind: 'arguments', recorded: rCalls, candidate: cCalls, summary };
  }
  return undefined;
}

/** A run's totals from its result (undefined when the run has none). */
export function totalsOf(result: RunResult | undefined, steps: readonly TurnStep[]): RunTotals | undefined {
  if (!result) return undefined;
  const cost = result.cost.cost;
  return {
    turns: steps.length,
    toolCalls: result.cost.toolCalls.used,
    modelCalls: result.cost.modelCalls.used,
    tokens: result.cost.tokens.used,
    ...(cost?.currency ? { cost: { amount: cost.used, currency: cost.currency } } : {}),
  };
}

/** Whether two final answers say the same: the same text and the same structured value. */
export function sameFinal(a: FinalResponse | undefined, b: FinalResponse | undefined): boolean {
  return (a?.text ?? null) === (b?.text ?? null) && callKey('', a?.structured ?? null) === callKey('', b?.structured ?? null);
}
