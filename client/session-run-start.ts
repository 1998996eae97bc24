import type { Client } from '@temporalio/client';
import { parseSessionRunWorkflowId, sessionQuery } from '../contracts/session';
import { PollPacing } from './poll-pacing';

/** How long {@link sessionRunState} waits for the session to answer its query. */
const sessionQueryTimeoutMs = 5_000;

/**
 * What a reader told "no such run" should make of `workflowId`: a session answers a message with
 * its run's id before the run starts (queued behind another, or a moment before its child
 * workflow exists), so a reader given that id right after `sendMessage` waits instead of
 * answering "no run".
 * - `started`: the run exists now (it started while the reader asked: read it again);
 * - `pending`: a session's run that will start: the session is open and lists it as queued or
 *   running;
 * - `none`: any other id, a run its session does not list, a session that has ended (a killed
 *   session's queued runs never start) or whose worker does not answer its query within 5 s.
 *
 * A quick run can start and end between one read and the next: a run its session lists as ended
 * is `started` when it exists. Reads only (describe, the session query).
 */
export async function sessionRunState(client: Client, workflowId: string): Promise<'started' | 'pending' | 'none'> {
  const sessionRun = parseSessionRunWorkflowId(workflowId);
  if (!sessionRun) return 'none';
  if (await exists(client, workflowId)) return 'started';
  const session = client.workflow.getHandle(sessionRun.sessionWorkflowId);
  const open = await session.describe().then((d) => d.status.name === 'RUNNING', () => false);
  if (!open) return 'none';
  // Bounded: with no worker to answer, the server would hold the query for long.
  const report = await client.connection.withDeadline(Date.now() + sessionQueryTimeoutMs, () => session.query(sessionQuery)).catch(() => undefined);
  const record = report?.runs.find((r) => r.runNumber === sessionRun.runNumber);
  if (record?.status === 'queued' || record?.status === 'running') return 'pending';
  return record !== undefined && (await exists(client, workflowId)) ? 'started' : 'none';
}

async function exists(client: Client, workflowId: string): Promise<boolean> {
  return client.workflow.getHandle(workflowId).describe().then(
    () => true,
    () => false,
  );
}

/** Waits while a session's run is {@link sessionRunState pending}: checks again soon, then every 2 s at most. Returns at once for any other id. */
export async function untilSessionRunStarts(client: Client, workflowId: string): Promise<void> {
  if (!parseSessionRunWorkflowId(workflowId)) return;
  const pacing = new PollPacing({ minMs: 100, maxMs: 2_000 });
  while ((await sessionRunState(client, workflowId)) === 'pending') await pacing.wait();
}
