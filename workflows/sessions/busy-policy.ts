/**
 * What a session does with a message that arrives while one of its runs is active, as plain
 * data and plain functions (no Temporal import): the sendMessage handler and its validator ask
 * {@link decideBusy}; the session performs what it says (queues, refuses, signals the run), and
 * {@link afterRun} says what the run's end makes of the messages it took. Tests:
 * test/unit/busy-policy.test.ts.
 */
import type { BusyPolicy } from '../../contracts/session';
import type { RunResult } from '../../contracts/run';

/** A message steered into the active run, until the run's end says whether its planner saw it. */
export interface Steer {
  readonly messageId: string;
  readonly content: string;
  /** Its planner options, for the run it gets if the active run does not see it. */
  readonly plannerOptions?: unknown;
}

/** The session's run in progress, as the policies see it. */
export interface ActiveRun {
  readonly runNumber: number;
  readonly workflowId: string;
  /** A later message is ending it (`interrupt` keeps what it did, `rollback` discards it). */
  ending?: 'interrupt' | 'rollback';
  /** Messages queued to run right after it (interrupting, rolling back or late steers), in order. */
  nextCount: number;
  readonly steers: Steer[];
}

export type BusyDecision =
  /** Queue it at the back (no run is active, or the policy is `enqueue`). */
  | { readonly type: 'enqueue' }
  /** Refuse it, naming the active run: nothing is queued. */
  | { readonly type: 'reject'; readonly active: ActiveRun }
  /** Queue it right after the active run and end that run now (`interrupt` or `rollback`). */
  | { readonly type: 'end_active'; readonly active: ActiveRun; readonly how: 'interrupt' | 'rollback' }
  /** Queue it right after the active run, which is ending already (it cannot take a steer). */
  | { readonly type: 'next'; readonly active: ActiveRun }
  /** Deliver it into the active run, at its next planner turn. */
  | { readonly type: 'steer'; readonly active: ActiveRun };

/**
 * Decides a new message (not a duplicate) by its policy: with no run active every message is
 * queued, whatever its policy. A run that a message is ending already takes no steer and is not
 * ended twice: later `interrupt`, `rollback` and `steer` messages run after it, in order.
 */
export function decideBusy(active: ActiveRun | undefined, policy: BusyPolicy): BusyDecision {
  if (!active || policy === 'enqueue') return { type: 'enqueue' };
  if (policy === 'reject') return { type: 'reject', active };
  if (active.ending) return { type: 'next', active };
  if (policy === 'steer') return { type: 'steer', active };
  return { type: 'end_active', active, how: policy };
}

/** Where in the queue a message that runs next goes: after those queued so before it, ahead of the rest. */
export function nextPosition(active: ActiveRun): number {
  return active.nextCount;
}

/** What the end of the active run makes of the session and of the messages steered into it. */
export interface RunEnd {
  /** Whether the session takes the run's session state and conversation (not after a rollback, nor a failure). */
  readonly keep: boolean;
  /** Steered messages the planner saw: they join the conversation after the run's own message. */
  readonly delivered: readonly Steer[];
  /** Steered messages it did not see (it ended first), and those of a rolled back run: each runs next, in order. */
  readonly requeued: readonly Steer[];
}

/**
 * The run's end: `result` is undefined when it failed. A rolled back run keeps nothing, and the
 * messages steered into it run again after the message that rolled it back, so none is lost.
 */
export function afterRun(active: ActiveRun, result: Pick<RunResult, 'steered'> | undefined): RunEnd {
  const seen = new Set(result?.steered ?? []);
  const keep = result !== undefined && active.ending !== 'rollback';
  const delivered = keep ? active.steers.filter((s) => seen.has(s.messageId)) : [];
  const requeued = active.steers.filter((s) => !delivered.includes(s));
  return { keep, delivered, requeued };
}
