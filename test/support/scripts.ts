import type { RunEvent, RunInput, RunResult, ToolCall } from '../../contracts';
import type { ScriptStep } from '../../workflows/planners/scripted';

/** Run input for the scripted agent. */
export function scriptedInput(steps: ScriptStep[], extra: Partial<RunInput> = {}): RunInput {
  return {
    agent: 'scripted',
    messages: [{ role: 'user', content: 'follow the script' }],
    plannerOptions: { steps },
    ...extra,
  };
}

/** A tool_calls step. */
export function callStep(...calls: { name: string; args: unknown; id?: string }[]): ScriptStep {
  return { type: 'tool_calls', calls: calls.map((c) => ({ ...c, args: c.args as never })) };
}

/** A call of the toolbox's `step` tool (waits `ms`, reports its label and inputs; fails when told to). */
export function stepCall(id: string, ms: number, more: Partial<ToolCall> & { fail?: boolean } = {}): ToolCall {
  const { fail, ...rest } = more;
  return { id, name: 'step', args: { label: id, ms, ...(fail ? { fail } : {}) }, ...rest };
}

/** A call of the toolbox's `sleep` tool with its own id, for plans whose calls a test tells apart. */
export function sleepCall(id: string, ms: number): { name: string; args: unknown; id: string } {
  return { name: 'sleep', args: { ms }, id };
}

/** The most tool calls a run's event log shows in flight at once (dispatched, no result yet). */
export function mostInFlight(events: readonly RunEvent[]): number {
  let inFlight = 0;
  let most = 0;
  for (const e of events) {
    if (e.type === 'tool_call') most = Math.max(most, ++inFlight);
    if (e.type === 'tool_result') inFlight -= 1;
  }
  return most;
}

/** A final step that reports every tool output it observed in `structured`. */
export function finalStep(text = 'done'): ScriptStep {
  return { type: 'final', text, reportObservations: true };
}

/** Shape of one entry of `structured` when `reportObservations` is set. */
export interface Observation {
  toolCallId: string;
  name: string;
  status: 'ok' | 'error' | 'cancelled';
  result?: unknown;
  resultOmitted?: boolean;
  resultBytes?: number;
  errorType?: string;
  errorMessage?: string;
  retryReason?: string;
}

/** The observations a `finalStep()` reported (one per tool output, in order). */
export function observations(result: RunResult): Observation[] {
  return result.final?.structured as unknown as Observation[];
}

/** A final step that reports the planner's whole view (instructions, messages, outputs). */
export const contextStep: ScriptStep = { type: 'final', text: 'done', reportContext: true };

/** The seed-003 watchlist agent, planned by a script, starting from this watchlist. */
export function watchlistRun(steps: ScriptStep[], watchlist: string[] = []): RunInput {
  return {
    agent: 'watchlist-scripted',
    messages: [{ role: 'user', content: 'Add AAPL to my watchlist using the add_to_watchlist tool' }],
    sessionState: { watchlist },
    plannerOptions: { steps },
  };
}

/** The call of seed 003: add AAPL (needs confirmation). */
export const addAapl = callStep({ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } });

/** Each observation as `[call id, error type or status]`, in order. */
export function outcomesOf(result: RunResult): [string, string][] {
  return observations(result).map((o) => [o.toolCallId, o.errorType ?? o.status]);
}
