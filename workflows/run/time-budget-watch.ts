/**
 * The watch over a run's time budget: one timer for the whole run, re-armed only when the budget
 * changes or the run goes idle (paused, waiting for a human: that time does not count). When the
 * budget is spent while tools run, the run loop cancels their turn and the calls come back as
 * `cancelled`; the planner then gets its Finalize turn (reason `time_budget`) from the cap check.
 */
import { type CancellationScope, condition, isCancellation, sleep } from '@temporalio/workflow';
import type { RunState } from '../state/run-state';
import type { ToolTurns } from '../calls/tool-turns';
import { timeBudgetStep, timeBudgetStepEnds, type WatchedRun } from '../state/budget';
import { UntimedScope } from '../kernel/untimed-scope';

/** What the watch needs of the run loop. */
export interface TimeBudgetHost {
  readonly state: RunState;
  /** The run's tool turns: a spent budget cancels the one in progress, and waits for a new one. */
  readonly toolTurns: ToolTurns;
  /**
   * The scope the watch's timers and waits belong to: the run's root scope. The watch can step
   * inside the code that reported a change, and must outlive that code's scope.
   */
  readonly scope: CancellationScope;
}

/** Starts the watch of the run's time budget (called once per execution, as its loop starts). */
export function watchTimeBudget(host: TimeBudgetHost): void {
  const waits = new ChangeWaits(host.scope);
  host.state.onClockChange = waits.changed;
  armTimeBudget(host, waits);
}

/**
 * How the watch waits; one wait is pending at a time. The wait beside the timer (where every run
 * starts) is tested when the run reports a change ({@link RunState.onClockChange}: idling, its end, a budget change) and
 * when the timer fires; it creates no promise, where a `condition` creates four at every run's
 * start. The other waits stay conditions: they are rare, and a condition re-arms only after the
 * task's other work, so a run that ends in the task that ended its wait arms no new timer.
 */
class ChangeWaits {
  private pending: { ready: () => boolean; then: () => void } | undefined;
  /** Where the conditions run: a change can be reported from a call's code, whose scope can be cancelled. */
  private conditionScope: UntimedScope | undefined;

  constructor(private readonly runScope: CancellationScope) {}

  /** The wait beside a running timer: calls `then` once `ready()` holds, tested at each change. */
  whileArmed(ready: () => boolean, then: () => void): void {
    this.pending = { ready, then };
  }

  /** The waits of an idle run and of a spent budget: conditions. */
  otherwise(ready: () => boolean, then: () => void): void {
    this.conditionScope ??= new UntimedScope({ cancellable: true, parent: this.runScope });
    this.conditionScope.run(() => condition(ready)).then(then, ignoreCancellation);
  }

  /** The timer fired, or something the wait beside the timer tests may have changed. */
  readonly changed = (): void => {
    const wait = this.pending;
    if (!wait?.ready()) return;
    this.pending = undefined;
    wait.then();
  };
}

/** Rejection handler of the watch's promises: a cancelled scope ends the watch; anything else fails the task. */
function ignoreCancellation(err: unknown): void {
  if (!isCancellation(err)) throw err;
}

/**
 * Each step arms the next when its wait ends. The timer is a `sleep` in a scope of
 * its own beside the wait, which saves the race, the cancellable scope and the async loop of
 * `condition(fn, timeout)`. When the run ends, its timer is left to close with it instead of
 * being cancelled first (one command and one event less per run).
 */
function armTimeBudget(host: TimeBudgetHost, waits: ChangeWaits): void {
  const { state, toolTurns } = host;
  const watched = (): WatchedRun => ({ isTerminal: state.isTerminal, isIdle: state.clock.isIdle, timeBudgetMs: state.policy.timeBudgetMs, toolTurns: toolTurns.begun });
  const then = watched();
  const step = timeBudgetStep(then, () => state.clock.elapsedMs());
  const next = (): void => armTimeBudget(host, waits);
  switch (step.kind) {
    case 'ended':
      return;
    case 'idle':
      waits.otherwise(() => timeBudgetStepEnds('idle', then, watched()), next);
      return;
    case 'spent':
      toolTurns.cancelForTimeBudget();
      // Wait for something that matters (a new tool turn, a new budget, idling).
      waits.otherwise(() => timeBudgetStepEnds('spent', then, watched()), next);
      return;
    case 'arm':
      break;
  }
  const timer = new UntimedScope({ cancellable: true, parent: host.scope });
  let fired = false;
  timer.run(() => sleep(step.timerMs)).then(() => {
    fired = true;
    waits.changed();
  }, ignoreCancellation);
  waits.whileArmed(
    () => timeBudgetStepEnds('arm', then, watched(), fired),
    () => {
      if (state.isTerminal) return; // the timer closes with the run
      if (!fired) timer.cancel();
      next();
    },
  );
}
