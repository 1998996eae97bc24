import { CancellationScope } from '@temporalio/workflow';

/**
 * A cancellation scope without a timeout, whose `run` enters it without the SDK's async wrapper:
 * that wrapper only arms a scope's own timeout, and adds two promises (each costs the SDK a
 * stack capture) and two microtasks before the scope's promise settles. The body runs at the
 * same moment either way. Used for the scope of a run's tool turns (see
 * ToolTurns.begin) and of its time-budget watcher.
 */
export class UntimedScope extends CancellationScope {
  protected override runInContext<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }
}
