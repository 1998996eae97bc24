import { CancellationScope } from '@temporalio/workflow';
import type { RetryHint, ToolOutput, ToolRequest } from '../contracts';

/** What a tool turn needs from the run; keeps the turn mechanics apart from run state. */
export interface ToolTurnHost {
  readonly parallel: boolean;
  /** Runs one call through its safe point, checks and dispatch; always yields an output. */
  runCall(request: ToolRequest, index: number, cancelHint: () => RetryHint | undefined): Promise<ToolOutput>;
  /** Why this turn's calls were cancelled, once they were (the time budget ran out). */
  cancelHint(): RetryHint | undefined;
  /** Called with the scope of in-flight calls, so a kill or the time budget can cancel it. */
  setToolScope(scope: CancellationScope | undefined): void;
}

/**
 * Runs the calls of one plan, concurrently or one by one, in a scope the run can cancel:
 * cancelled calls come back as `cancelled` outputs, so every call is answered. Outputs are
 * in call order.
 */
export async function runToolTurn(requests: readonly ToolRequest[], host: ToolTurnHost): Promise<ToolOutput[]> {
  const calls = new CancellationScope();
  host.setToolScope(calls);
  try {
    return await calls.run(async () => {
      if (host.parallel) return Promise.all(requests.map((r, i) => host.runCall(r, i, () => host.cancelHint())));
      const outputs: ToolOutput[] = [];
      for (const [i, r] of requests.entries()) outputs.push(await host.runCall(r, i, () => host.cancelHint()));
      return outputs;
    });
  } finally {
    host.setToolScope(undefined);
  }
}
