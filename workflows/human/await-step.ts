import type { Await } from '../../contracts/plan';
import type { CarriedOpenTurn } from '../../contracts/carried-state';
import type { ToolOutput } from '../../contracts/tools';
import { workflowNowMs } from '../kernel/clock';
import { answersToTranscript, boundCalls, type BoundCall } from '../state/human-inputs';
import { RunTerminated } from '../kernel/run-terminated';
import type { RunState } from '../state/run-state';

/** What an await step needs from the loop. */
export interface AwaitHost {
  waitFor(done: () => boolean, timeoutMs?: number): Promise<boolean>;
  fail(errorType: string, message: string): never;
}

/** An await the previous execution continued as new in, with the answers given so far. */
export type CarriedAwait = Extract<CarriedOpenTurn, { kind: 'await' }>;

/**
 * Opens an await barrier, waits once until every item is answered (or the timeout passes,
 * handled by the barrier's `onTimeout` policy), and returns the outputs that close the calls
 * the items were bound to. Unbound answers enter the conversation as user messages. With
 * `carried`, the barrier was opened by the previous execution: it waits on for the rest of it.
 *
 * @throws RunTerminated on a kill while waiting.
 */
export async function runAwait(state: RunState, host: AwaitHost, planned: Await, carried?: CarriedAwait): Promise<ToolOutput[]> {
  const { awaitId, spec, timeoutMs } = carried ? reopenAwait(state, carried) : openAwait(state, planned);
  const answered = await host.waitFor(() => state.human.allAnswered, timeoutMs);
  if (answered) {
    state.emit({ type: 'await_closed', awaitId, outcome: 'answered' });
  } else {
    state.emit({ type: 'await_closed', awaitId, outcome: state.control.kill ? 'cancelled' : 'timed_out' });
    if (state.control.kill) throw new RunTerminated();
    if (spec.onTimeout === 'fail') host.fail('await_timeout', `await ${awaitId} timed out after ${spec.timeoutMs} ms without all answers`);
    if (spec.onTimeout === 'finalize') state.requestFinalize('await_timeout');
    state.human.answerByDefault();
  }
  const answers = state.human.open?.answers ?? new Map();
  state.human.open = undefined;
  state.refreshStatus();
  const { outputs, messages } = answersToTranscript(spec, answers, state.turn);
  for (const output of outputs) state.record(output);
  state.commit(outputs);
  state.messages.push(...messages);
  return outputs;
}

/** The calls an await stands for wait like planned calls (a kill closes them). */
export function holdBoundCalls(state: RunState, spec: Await): BoundCall[] {
  const bound = spec.items.flatMap(boundCalls);
  for (const c of bound) {
    state.pending.set(c.toolCallId, { request: { toolCallId: c.toolCallId, name: c.name, args: c.args, turn: state.turn }, dispatched: false });
  }
  return bound;
}

/** Opens the barrier a planner asked for: its calls in the transcript, its events. */
function openAwait(state: RunState, planned: Await): { awaitId: string; spec: Await; timeoutMs: number | undefined } {
  const awaitId = `await_${state.turn}`;
  const unique = planned.items.some((item) => boundCalls(item).length > 0);
  const spec = (unique && state.callIds.uniqueInAwait(planned)) || planned;
  const bound = holdBoundCalls(state, spec);
  if (unique) state.callIds.markUsed(bound.map((c) => c.toolCallId));
  if (bound.length) state.messages.push({ role: 'assistant', toolCalls: bound.map((c) => ({ id: c.toolCallId, name: c.name, args: c.args })) });
  const deadline = spec.timeoutMs !== undefined ? new Date(workflowNowMs() + spec.timeoutMs).toISOString() : undefined;
  state.human.openAwait(awaitId, spec, state.turn, deadline);
  state.emit({ type: 'plan', turn: state.turn, decision: 'await' });
  state.emit({ type: 'await_opened', awaitId, turn: state.turn, items: spec.items, ...(deadline ? { deadline } : {}) });
  state.refreshStatus();
  return { awaitId, spec, timeoutMs: spec.timeoutMs };
}

/**
 * Reopens a barrier the previous execution opened (no events: they are in the log), for the time
 * it has left. The barrier, its answers and its calls are back already (carried-waits.ts), with
 * any answer given since.
 */
function reopenAwait(state: RunState, carried: CarriedAwait): { awaitId: string; spec: Await; timeoutMs: number | undefined } {
  state.refreshStatus();
  const timeoutMs = carried.deadline === undefined ? undefined : Math.max(1, Date.parse(carried.deadline) - workflowNowMs());
  return { awaitId: carried.awaitId, spec: carried.spec, timeoutMs };
}
