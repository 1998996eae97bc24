import type { ReplayOutcome } from '../../worker/replay';

let runtimeInstalled = false;

/**
 * Replays a history JSON against a workflows module (see `worker/replay.ts`). The worker SDK
 * (native runtime, bundler) is loaded here, on first use, so other commands start fast. SDK
 * logs go to `log` (stderr) and only from ERROR up: the native side otherwise prints its WARN
 * "failing workflow task" on stdout, ahead of the report.
 */
export async function replayHistory(json: unknown, workflowsPath: string, log: (line: string) => void): Promise<ReplayOutcome> {
  const [{ DefaultLogger, Runtime }, { replayHistoryJson }, { bundleAgentWorkflows }] = await Promise.all([
    import('@temporalio/worker'),
    import('../../worker/replay'),
    import('../../worker/create-worker'),
  ]);
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    Runtime.install({
      logger: new DefaultLogger('ERROR', (entry) => log(`${entry.level} ${entry.message}`)),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
    });
  }
  return replayHistoryJson(json, await bundleAgentWorkflows(workflowsPath));
}
