import type { Client } from '@temporalio/client';
import type { ForkOptions } from '../../worker/fork';
import type { ReplayOutcome } from '../../worker/replay';

let runtimeInstalled = false;

/**
 * Replays a history JSON against a workflows module (see `worker/replay.ts`). The worker SDK
 * (native runtime, bundler) is loaded here, on first use, so other commands start fast. SDK
 * logs go to `log` (stderr) and only from ERROR up: the native side otherwise prints its WARN
 * "failing workflow task" on stdout, ahead of the report.
 */
export async function replayHistory(json: unknown, workflowsPath: string, log: (line: string) => void): Promise<ReplayOutcome> {
  await quietWorkerRuntime(log);
  const [{ replayHistoryJson }, { bundleAgentWorkflows }] = await Promise.all([import('../../worker/replay'), import('../../worker/create-worker')]);
  return replayHistoryJson(json, await bundleAgentWorkflows(workflowsPath));
}

/** Forks a run (see `worker/fork.ts`), loading the worker SDK on first use with quiet logs. */
export async function forkWithWorkerSdk(
  client: Client,
  workflowId: string,
  options: ForkOptions,
  log: (line: string) => void,
): Promise<Awaited<ReturnType<typeof import('../../worker/fork').forkRun>>> {
  await quietWorkerRuntime(log);
  const { forkRun } = await import('../../worker/fork');
  return forkRun(client, workflowId, options);
}

/** Installs the worker SDK's runtime once, logging from ERROR up to `log`. */
async function quietWorkerRuntime(log: (line: string) => void): Promise<void> {
  const { DefaultLogger, Runtime } = await import('@temporalio/worker');
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: new DefaultLogger('ERROR', (entry) => log(`${entry.level} ${entry.message}`)),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
}
