import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/**
 * A worker's poll of a task queue lasts up to about a minute: a worker that polled within this
 * long may still be waiting on its poll. Older, the worker is gone or all its slots are busy.
 */
export const pollFreshMs = 75_000;

/** Whether workers poll a run's task queue, as the Temporal server saw it. */
export interface WorkerPresence {
  readonly taskQueue: string;
  /** Some worker polled the queue within {@link pollFreshMs} (it may have crashed since). */
  readonly polled: boolean;
  /** When a worker last polled the queue (ISO); null when none did in the last five minutes (the server forgets pollers then). */
  readonly lastSeen: string | null;
}

/**
 * Asks the server which workers polled a task queue for workflow tasks lately
 * (`DescribeTaskQueue`: pollers and the time of their last poll).
 */
export async function workerPresence(client: Client, taskQueue: string, now = Date.now()): Promise<WorkerPresence> {
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  let last: number | undefined;
  for (const poller of pollers ?? []) {
    const at = poller.lastAccessTime ? Number(poller.lastAccessTime.seconds ?? 0) * 1000 + Math.floor((poller.lastAccessTime.nanos ?? 0) / 1e6) : undefined;
    if (at !== undefined && (last === undefined || at > last)) last = at;
  }
  return { taskQueue, polled: last !== undefined && now - last < pollFreshMs, lastSeen: last === undefined ? null : new Date(last).toISOString() };
}

/** `no worker polls task queue X (last seen <time>, N s ago)`, or `(none seen in the last 5 minutes)`. */
export function noWorkerPolls(presence: WorkerPresence, now = Date.now()): string {
  const seen = presence.lastSeen === null ? 'none seen in the last 5 minutes' : `last seen ${presence.lastSeen}, ${Math.round((now - Date.parse(presence.lastSeen)) / 1000)} s ago`;
  return `no worker polls task queue ${presence.taskQueue} (${seen})`;
}
