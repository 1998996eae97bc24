import type { Client } from '@temporalio/client';
import type { ForkOptions } from '../worker/fork';
import type { ReplayOutcome } from '../worker/replay';
import { workflowBundleOf, type WorkflowCode } from './workflow-code';

/**
 * Replays a history JSON against workflow code (see `worker/replay.ts`). The worker SDK
 * (native runtime, bundler) is loaded here, on first use, so other commands start fast. SDK
 * logs go to `log` (stderr) and only from ERROR up: the native side otherwise prints its WARN
 * "failing workflow task" on stdout, ahead of the report.
 */
export async function replayHistory(json: unknown, code: WorkflowCode, log: (line: string) => void): Promise<ReplayOutcome> {
  return withWorkerRuntime(log, async () => {
    const { replayHistoryJson } = await import('../worker/replay');
    return replayHistoryJson(json, await workflowBundleOf(code));
  });
}

/** Forks a run (see `worker/fork.ts`), loading the worker SDK on first use with quiet logs. */
export async function forkWithWorkerSdk(
  client: Client,
  workflowId: string,
  options: ForkOptions,
  log: (line: string) => void,
): Promise<Awaited<ReturnType<typeof import('../worker/fork').forkRun>>> {
  return withWorkerRuntime(log, async () => {
    const { forkRun } = await import('../worker/fork');
    return forkRun(client, workflowId, options);
  });
}

/**
 * Runs `fn` with the worker SDK's native runtime installed (logging from ERROR up to `log`) and
 * shuts the runtime down afterwards, whether `fn` succeeded or not. The runtime keeps the
 * process alive until it is shut down, and only shuts itself down once a worker it ran has
 * stopped: a fork refused before its replay worker started (`--to-turn 0`, a bundle that does
 * not build) would otherwise leave the CLI hanging after its error. It installs no signal
 * handlers, so SIGINT and SIGTERM end the command as they end any other.
 */
export async function withWorkerRuntime<T>(log: (line: string) => void, fn: () => Promise<T>): Promise<T> {
  const { DefaultLogger, IllegalStateError, Runtime } = await import('@temporalio/worker');
  let installed: ReturnType<typeof Runtime.install> | undefined;
  try {
    installed = Runtime.install({
      logger: new DefaultLogger('ERROR', (entry) => log(`${entry.level} ${entry.message}`)),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
      shutdownSignals: [],
    });
  } catch (err) {
    // A process that runs the CLI next to its own workers: their runtime is theirs to stop.
    if (!(err instanceof IllegalStateError)) throw err;
  }
  try {
    return await fn();
  } finally {
    // Marked internal in the SDK, but the only way to let go of a runtime no worker used; a no-op
    // when the replay worker's shutdown already shut it down.
    await installed?.shutdown();
  }
}
