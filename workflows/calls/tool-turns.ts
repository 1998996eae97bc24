/**
 * The run's tool turns as the run loop, the turn driver and the time-budget watch
 * all see them: the scope the calls of the turn in progress run in, why the run cancelled them,
 * and how many turns have begun. One record shared by the three, instead of callbacks passed
 * between them.
 */
import type { CancellationScope } from '@temporalio/workflow';
import type { RetryHint } from '../../contracts/tools';
import { UntimedScope } from '../kernel/untimed-scope';

/** Tool turns that share one cancellation scope before it is renewed (see {@link ToolTurns.begin}). */
const sharedScopeMaxTurns = 64;

/** Why a call the time budget cancelled did not finish, for the planner. */
export const timeBudgetHint: RetryHint = { reason: 'timeout', message: 'the run time budget ran out while this call was running' };

export class ToolTurns {
  /** Tool turns begun so far: a spent time budget waits for a new one. */
  begun = 0;
  /** Why the calls of the current turn were cancelled, once the run cancelled them. */
  cancelHint: RetryHint | undefined;
  /** The scope of the turn in progress; undefined between turns. */
  private inProgress: CancellationScope | undefined;
  /** The scope turns share, and how many turns have used it. */
  private shared: CancellationScope | undefined;
  private sharedTurns = 0;

  /**
   * Begins a turn and returns the scope its calls run in. The scope is shared by the run's turns
   * until it is cancelled (a kill, the time budget) or has served a number of turns: only one turn
   * runs at a time, so cancelling it cancels exactly the calls in flight, as a scope per turn
   * would, and sharing it saves each turn the promises of a new scope. It is renewed now and then
   * because each activity scheduled in a scope leaves a cancellation handler on it until the
   * scope settles.
   */
  begin(): CancellationScope {
    if (!this.shared || this.shared.consideredCancelled || this.sharedTurns >= sharedScopeMaxTurns) {
      this.shared = new UntimedScope();
      this.sharedTurns = 0;
    }
    this.sharedTurns += 1;
    this.inProgress = this.shared;
    this.begun += 1;
    this.cancelHint = undefined;
    return this.shared;
  }

  /** The turn in progress has ended (all its calls answered, or it failed). */
  end(): void {
    this.inProgress = undefined;
  }

  /** A kill: cancels the calls in flight, if a turn is in progress. */
  cancel(): void {
    this.inProgress?.cancel();
  }

  /** The time budget is spent: cancels the turn in progress once, with the hint its calls report. */
  cancelForTimeBudget(): void {
    if (this.inProgress && !this.cancelHint) {
      this.cancelHint = timeBudgetHint;
      this.inProgress.cancel();
    }
  }
}
