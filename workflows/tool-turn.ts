import { CancellationScope, condition, isCancellation, sleep } from '@temporalio/workflow';
import type { RetryHint, ToolOutput, ToolRequest } from '../contracts';

/** What a tool turn needs from the run; keeps the turn mechanics apart from run state. */
export interface ToolTurnHost {
  readonly parallel: boolean;
  /** Runs one call through its safe point, checks and dispatch; always yields an output. */
  runCall(request: ToolRequest, index: number, cancelHint: () => RetryHint | undefined): Promise<ToolOutput>;
  /** Time budget left, excluding time spent paused. */
  remainingTimeMs(): number;
  isPaused(): boolean;
  /** Called with the scope of in-flight calls so a kill can cancel it. */
  setActiveScope(scope: CancellationScope | undefined): void;
}

/** Outputs of a turn in call order, and whether the time budget cut it short. */
export interface ToolTurnResult {
  readonly outputs: ToolOutput[];
  readonly timedOut: boolean;
}

const timeBudgetHint: RetryHint = { reason: 'timeout', message: 'the run time budget ran out while this call was running' };

/**
 * Runs the calls of one plan, concurrently or one by one, racing the time budget: when the
 * budget runs out (time spent paused does not count), calls still running are cancelled and
 * come back as `cancelled` outputs, so every call is answered.
 */
export async function runToolTurn(requests: readonly ToolRequest[], host: ToolTurnHost): Promise<ToolTurnResult> {
  let timedOut = false;
  let done = false;
  const cancelHint = (): RetryHint | undefined => (timedOut ? timeBudgetHint : undefined);
  const calls = new CancellationScope();
  const watchdog = new CancellationScope();
  host.setActiveScope(calls);

  const work = calls.run(async () => {
    if (host.parallel) return Promise.all(requests.map((r, i) => host.runCall(r, i, cancelHint)));
    const outputs: ToolOutput[] = [];
    for (const [i, r] of requests.entries()) outputs.push(await host.runCall(r, i, cancelHint));
    return outputs;
  });

  watchdog
    .run(async () => {
      for (;;) {
        if (host.isPaused()) await condition(() => !host.isPaused() || done);
        if (done) return;
        const remaining = host.remainingTimeMs();
        if (remaining <= 0) break;
        await sleep(remaining);
      }
      timedOut = true;
      calls.cancel();
    })
    .catch((err: unknown) => {
      if (!isCancellation(err)) throw err;
    });

  try {
    return { outputs: await work, timedOut };
  } finally {
    done = true;
    watchdog.cancel();
    host.setActiveScope(undefined);
  }
}
