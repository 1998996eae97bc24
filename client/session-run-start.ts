import type { Client } from '@temporalio/client';
import { parseSessionRunWorkflowId, sessionQuery } from '../contracts/session';
import { PollPacing } from './poll-pacing';

/** How long {@link sessionRunPending} waits for the session to answer its query. */
const sessionQueryTimeoutMs = 5_000;

/**
 * Whether `workflowId` names a session's run that does not exist yet but will: its session is
 * open and lists the run as queued or running. A session answers a message with its run's id
 * before the run starts (queued behind another, or a moment before its child workflow exists),
 * so a reader given that id right after `sendMessage` waits instead of answering "no run".
 * False for any other id, a run that exists, a session that does not list it or has ended
 * (a killed session's queued runs never start), or whose worker does not answer its query within
 * 5 s. Reads only (describe, the session query).
 */
export async function sessionRunPending(client: Client, workflowId: string): Promise<boolean> {
  const sessionRun = parseSessionRunWorkflowId(workflowId);
  if (!sessionRun) return false;
  if (await client.workflow.getHandle(workflowId).describe().then(() => true, () => false)) return false;
  const session = client.workflow.getHandle(sessionRun.sessionWorkflowId);
  const open = await session.describe().then((d) => d.status.name === 'RUNNING', () => false);
  if (!open) return false;
  // Bounded: with no worker to answer, the server would hold the query for long.
  const report = await client.connection.withDeadline(Date.now() + sessionQueryTimeoutMs, () => session.query(sessionQuery)).catch(() => undefined);
  const record = report?.runs.find((r) => r.runNumber === sessionRun.runNumber);
  return record?.status === 'queued' || record?.status === 'running';
}

/** Waits while {@link sessionRunPending}: checks again soon, then every 2 s at most. Returns at once for any other id. */
export async function untilSessionRunStarts(client: Client, workflowId: string): Promise<void> {
  if (!parseSessionRunWorkflowId(workflowId)) return;
  const pacing = new PollPacing({ minMs: 100, maxMs: 2_000 });
  while (await sessionRunPending(client, workflowId)) await pacing.wait();
}
