/**
 * The watch over a run's time budget: one timer for the whole run, re-armed only when the budget
 * changes or the run goes idle (paused, waiting for a human: that time does not count). When the
 * budget is spent while tools run, the run loop cancels their turn and the calls come back as
 * `cancelled`; the planner then gets its Finalize turn (reason `time_budget`) from the cap check.
 */
import { condition, isCancellation, sleep } from '@temporalio/workflow';
import { budgetWatchWithoutRace, isPatched } from './patches';
import type { RunState } from './run-state';
import { UntimedScope } from './untimed-scope';

/** What the watch needs of the run loop. */
export interface TimeBudgetHost {
  readonly state: RunState;
  /** Tool turns begun so far: a spent budget waits for a new one. */
  toolTurns(): number;
  /** Cancels the tool turn in progress, if any, because the budget is spent. */
  cancelToolTurn(): void;
}

/** Starts the watch of the run's time budget (called once per execution, as its loop starts). */
export function watchTimeBudget(host: TimeBudgetHost): void {
  if (isPatched(budgetWatchWithoutRace)) armTimeBudget(host);
  else watchTimeBudgetInLoop(host);
}

/** Rejection handler of the watch's promises: a cancelled scope ends the watch; anything else fails the task. */
function ignoreCancellation(err: unknown): void {
  if (!isCancellation(err)) throw err;
}

/**
 * Since 0.9.0 (patch `budget-watch-without-race`): each step arms the next from a callback.
 * The timer is a `sleep` in a scope of its own beside a plain `condition`, which saves the race,
 * the cancellable scope and the async loop of `condition(fn, timeout)`: about half the promises
 * a run creates at its start. When the run ends, its timer is left to close with it instead of
 * being cancelled first (one command and one event less per run).
 */
function armTimeBudget(host: TimeBudgetHost): void {
  const { state } = host;
  if (state.isTerminal) return;
  const budget = state.policy.timeBudgetMs;
  const next = (): void => armTimeBudget(host);
  if (state.isIdle) {
    condition(() => !state.isIdle || state.isTerminal).then(next, ignoreCancellation);
    return;
  }
  const remaining = budget - state.elapsedMs();
  if (remaining <= 0) {
    const turns = host.toolTurns();
    host.cancelToolTurn();
    // Spent: wait for something that matters (a new tool turn, a new budget, idling).
    condition(() => host.toolTurns() !== turns || state.policy.timeBudgetMs !== budget || state.isIdle || state.isTerminal).then(next, ignoreCancellation);
    return;
  }
  const timer = new UntimedScope();
  let fired = false;
  timer.run(() => sleep(remaining)).then(() => {
    fired = true;
  }, ignoreCancellation);
  condition(() => fired || state.policy.timeBudgetMs !== budget || state.isIdle || state.isTerminal).then(() => {
    if (state.isTerminal) return; // the timer closes with the run
    if (!fired) timer.cancel();
    next();
  }, ignoreCancellation);
}

/** The watch of runs recorded before 0.9.0: an async loop over `condition(fn, timeout)`. */
function watchTimeBudgetInLoop(host: TimeBudgetHost): void {
  const { state } = host;
  // Entered without the SDK's async wrapper: only when the watcher's own promise settles
  // changes, and nothing waits for that but the catch below.
  new UntimedScope()
    .run(async () => {
      for (;;) {
        if (state.isTerminal) return;
        const budget = state.policy.timeBudgetMs;
        const turns = host.toolTurns();
        if (state.isIdle) {
          await condition(() => !state.isIdle || state.isTerminal);
          continue;
        }
        const remaining = budget - state.elapsedMs();
        if (remaining <= 0) {
          host.cancelToolTurn();
          // Spent: wait for something that matters (a new tool turn, a new budget, idling).
          await condition(() => host.toolTurns() !== turns || state.policy.timeBudgetMs !== budget || state.isIdle || state.isTerminal);
          continue;
        }
        await condition(() => state.policy.timeBudgetMs !== budget || state.isIdle || state.isTerminal, remaining);
      }
    })
    .catch(ignoreCancellation);
}
