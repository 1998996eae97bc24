import { WorkflowFailedError } from '@temporalio/client';
import { AgentClientError } from './errors';
import type { RunCalls } from './run-calls';

/**
 * Waits until a worker has run the first workflow task of run `workflowId` (see
 * {@link RunHandle.confirmStarted}): `running` (or `ended`) once it did, `not_picked_up` when no
 * worker took it within `timeoutMs`.
 *
 * @throws AgentClientError `start_failed` with the run's own reason when it failed at once.
 */
export async function confirmStarted(calls: RunCalls, workflowId: string, timeoutMs: number): Promise<'running' | 'ended' | 'not_picked_up'> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const description = await calls.describe(workflowId);
    const status = description.status.name;
    if (status === 'FAILED') {
      const reason = await calls.handle(workflowId).result().then(
        () => 'failed',
        (err: unknown) => (err instanceof WorkflowFailedError && err.cause ? err.cause.message : err instanceof Error ? err.message : String(err)),
      );
      throw new AgentClientError('start_failed', `run ${workflowId} failed at start: ${reason}`);
    }
    if (status !== 'RUNNING') return 'ended';
    // Started, scheduled, started and completed: the first workflow task is done.
    if ((description.historyLength ?? 0) >= 4) return 'running';
    if (Date.now() >= deadline) return 'not_picked_up';
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
  }
}
