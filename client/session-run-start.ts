import type { Client } from '@temporalio/client';
import { parseSessionRunWorkflowId, sessionQuery } from '../contracts/session';

/**
 * Waits while `workflowId` names a session's run that its session lists as queued or running
 * but that does not exist yet: a session answers a message with its run's id before the run
 * starts (queued behind another, or a moment before its child workflow exists). Returns at once
 * for any other id, a run that exists, or a session that does not list it.
 */
export async function untilSessionRunStarts(client: Client, workflowId: string): Promise<void> {
  const sessionRun = parseSessionRunWorkflowId(workflowId);
  if (!sessionRun) return;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
    if (await client.workflow.getHandle(workflowId).describe().then(() => true, () => false)) return;
    const report = await client.workflow
      .getHandle(sessionRun.sessionWorkflowId)
      .query(sessionQuery)
      .catch(() => undefined);
    const record = report?.runs.find((r) => r.runNumber === sessionRun.runNumber);
    if (!record || (record.status !== 'queued' && record.status !== 'running')) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, wait));
  }
}
