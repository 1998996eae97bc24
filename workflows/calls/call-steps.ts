/**
 * A tool call written as steps instead of one async function, with the same microtask timing.
 *
 * An async function that awaits a promise settles one microtask after it, and so does a `then`
 * on it, with one promise instead of two (each promise costs the SDK's promise hook a stack
 * capture). So a call is a chain of synchronous steps: each returns the call's output or a
 * {@link CallWait}. {@link settleSteps} returns a call that never waited before its last step
 * with a single `then` (or none), and runs one that does wait in an async function that awaits
 * at the same points as the code it replaces: either way, every step runs in the same microtask
 * as before, so concurrent calls' commands keep their order in history.
 */
import type { ToolOutput } from '../../contracts/tools';

/**
 * Where a call waits, and how it goes on: `resume` with the value, or `fail` with the error (the
 * code after an `await` and its `catch`). `last`: the call's final wait, whose `resume` and
 * `fail` always end the call. `settled`: a last wait whose promise already yields the recorded
 * output (`resume` passes it on), so a call that never waited returns that promise as it is.
 */
export interface CallWait {
  readonly promise: Promise<unknown>;
  readonly resume: (value: unknown) => CallStep;
  readonly fail: (err: unknown) => CallStep;
  readonly last: boolean;
  readonly settled?: boolean;
}

/** A call's next step: its output, or a wait. */
export type CallStep = { readonly output: ToolOutput } | CallWait;

export function waitOn<T>(promise: Promise<T>, resume: (value: T) => CallStep, fail: (err: unknown) => CallStep, last = false): CallWait {
  return { promise, resume: resume as (value: unknown) => CallStep, fail, last };
}

export function rethrow(err: unknown): never {
  throw err;
}

/** The output of a last step (its `resume` and `fail` end the call). */
function outputOf(step: CallStep): ToolOutput {
  if ('output' in step) return step.output;
  throw new Error("a call's last step waited again");
}

/** The call's output from its first step: at once, through its last wait, or through {@link resumeSteps}. */
export function settleSteps(step: CallStep): Promise<ToolOutput> {
  if ('output' in step) return Promise.resolve(step.output);
  if (step.settled) return step.promise as Promise<ToolOutput>;
  if (step.last) {
    return step.promise.then(
      (value) => outputOf(step.resume(value)),
      (err: unknown) => outputOf(step.fail(err)),
    );
  }
  return resumeSteps(step);
}

/** A call that waits before its last step: awaits each wait in turn, where the async function did. */
async function resumeSteps(first: CallWait): Promise<ToolOutput> {
  let wait = first;
  for (;;) {
    let value: unknown;
    let failed = false;
    let error: unknown;
    try {
      value = await wait.promise;
    } catch (err) {
      failed = true;
      error = err;
    }
    const step = failed ? wait.fail(error) : wait.resume(value);
    if ('output' in step) return step.output;
    wait = step;
  }
}
