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

/** `no worker answered run R in time (task queue X, last polled <time>)`: the queue looks polled, but the run's worker did not answer (it may have crashed a moment ago). */
export function noWorkerAnswered(workflowId: string, presence: WorkerPresence, within = 'in time'): string {
  return `no worker answered run ${workflowId} ${within} (task queue ${presence.taskQueue}, last polled ${presence.lastSeen ?? 'never'})`;
}

/**
 * Worker presence for reads, asked at most once per task queue every {@link PresenceCache.ttlMs}
 * (and each run's task queue once): a dashboard or a follower reads a run every few seconds, and
 * asking the server twice more per read would triple what watching costs it. Updates and starts
 * ask afresh.
 */
export class PresenceCache {
  static readonly ttlMs = 2_000;
  /** Bounds the runs whose task queue is remembered (a run's task queue does not change). */
  private static readonly maxRuns = 1_000;
  private readonly byQueue = new Map<string, { readonly at: number; readonly presence: Promise<WorkerPresence> }>();
  private readonly queueOfRun = new Map<string, string>();

  constructor(private readonly client: Client) {}

  /** The presence of the workers of a run's task queue; `taskQueueOf` reads it when the run is new here. */
  async ofRun(workflowId: string, taskQueueOf: () => Promise<string>, now = Date.now()): Promise<WorkerPresence> {
    let taskQueue = this.queueOfRun.get(workflowId);
    if (taskQueue === undefined) {
      taskQueue = await taskQueueOf();
      if (this.queueOfRun.size >= PresenceCache.maxRuns) this.queueOfRun.delete(this.queueOfRun.keys().next().value as string);
      this.queueOfRun.set(workflowId, taskQueue);
    }
    const cached = this.byQueue.get(taskQueue);
    if (cached && now - cached.at < PresenceCache.ttlMs) return cached.presence;
    const presence = workerPresence(this.client, taskQueue);
    this.byQueue.set(taskQueue, { at: now, presence });
    // A failed ask is not remembered.
    presence.catch(() => this.byQueue.delete(taskQueue));
    return presence;
  }
}

/** `no worker polls task queue X (last seen <time>, N s ago)`, or `(none seen in the last 5 minutes)`. */
export function noWorkerPolls(presence: WorkerPresence, now = Date.now()): string {
  const seen = presence.lastSeen === null ? 'none seen in the last 5 minutes' : `last seen ${presence.lastSeen}, ${Math.round((now - Date.parse(presence.lastSeen)) / 1000)} s ago`;
  return `no worker polls task queue ${presence.taskQueue} (${seen})`;
}
