import { NoWorkerError, type AgentClient } from '../client/agent-client';
import type { CommandContext } from './command';

/** A control signal: the fire-and-forget twin of an update. */
export type SignalName = Parameters<AgentClient['signal']>[1];

/**
 * Sends an update and prints its answer with `done`. When no worker would take the update now
 * (none polls the run's task queue, or none answered the run), sends its signal twin instead:
 * the signal waits in the run's history and applies when a worker returns, and the output says
 * so (`--json`: `{ workflowId, queued: true, signal, reason }`). The run checks the signal when
 * it gets it; one it refuses becomes a `signal_rejected` event in its log.
 *
 * @param what what is queued, for people: "decision", "pause", …
 */
export async function updateOrQueue<T>(
  ctx: CommandContext,
  runId: string,
  what: string,
  update: () => Promise<T>,
  signal: { readonly name: SignalName; readonly payload: unknown },
  done: (answer: T) => void,
): Promise<void> {
  let answer: T;
  try {
    answer = await update();
  } catch (err) {
    if (!(err instanceof NoWorkerError)) throw err;
    await ctx.agents.signal(runId, signal.name, signal.payload);
    ctx.out.emit(
      { workflowId: runId, queued: true, signal: signal.name, reason: err.reason },
      () => `${err.reason}; the ${what} is queued and will apply when a worker returns (sent as the ${signal.name} signal; the run checks it then)`,
    );
    return;
  }
  done(answer);
}
