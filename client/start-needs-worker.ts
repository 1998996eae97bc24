import type { Client } from '@temporalio/client';
import { NoWorkerError } from './errors';
import { noWorkerPolls, workerPresence, type WorkerPresence } from './worker-presence';

/** Options of {@link AgentClient.start}. */
export interface StartOptions {
  /** Workflow id; defaults to `run-<agent>-<random>`. Starting an id that is running fails; one a closed run holds, see `reuseClosedId`. */
  readonly workflowId?: string;
  /**
   * `true`: start even when a closed run holds `workflowId`; the new run then answers for the id
   * (the closed one stays readable by its run id). Default: refused with RunIdTakenError.
   */
  readonly reuseClosedId?: boolean;
  /**
   * `true`: start the run even when no worker has polled the client's task queue in the last five
   * minutes; it waits there until one does. Default: such a start is refused with NoWorkerError.
   */
  readonly allowNoWorker?: boolean;
}

/**
 * How long a start looks again for a worker that is only starting (its first poll may reach the
 * server a moment after the client asks): the pauses between the looks, 3 s in all. Spent only on
 * a start that is then refused.
 */
const lookAgainMs = [100, 200, 400, 800, 1_500];

/**
 * Whether a run may start on a task queue as the server knows it: some worker polled the queue
 * in the last five minutes (the server forgets pollers after that). A worker that polled a minute
 * ago and restarts (a deploy) still counts: its runs wait for it. A queue none polled is a wrong
 * queue or a worker never started, where a run would wait for ever.
 */
export function isStartable(presence: WorkerPresence): boolean {
  return presence.lastSeen !== null;
}

/** How a caller sets the task queue and starts anyway, as the refusal names them. */
export interface StartSettingNames {
  /** Where the task queue comes from, e.g. `AgentClient.fromEnv() reads TEMPORAL_TASK_QUEUE`. */
  readonly taskQueue: string;
  /** The option that starts anyway, e.g. `allowNoWorker: true`. */
  readonly startAnyway: string;
}

/** The names of {@link AgentClient.start}'s refusal. */
const clientSettings: StartSettingNames = { taskQueue: 'AgentClient.fromEnv() reads TEMPORAL_TASK_QUEUE', startAnyway: 'allowNoWorker: true' };

/** The message of a refused start: the queue, what to do, and the option that starts anyway. */
export function refusedStartMessage(presence: WorkerPresence, names: StartSettingNames = clientSettings): string {
  return (
    `the run was not started: start a worker on task queue ${presence.taskQueue}, or use the task queue your workers poll ` +
    `(${names.taskQueue}), or pass ${names.startAnyway} to start it anyway (it waits on the queue for a worker)`
  );
}

/**
 * How long after a worker's poll a start may take the queue as startable without asking: the
 * server remembers a poller for five minutes, so until then it would answer the same. A minute
 * short of that, for clocks that differ.
 */
export const startableWithoutAskingMs = 4 * 60_000;

/**
 * Whether a start may go ahead on what an earlier start learnt (`lastSeenMs`: the newest poll it
 * saw on the queue, undefined when it saw none): yes while that poll is recent enough that the
 * server would still count it ({@link startableWithoutAskingMs}). A queue not known startable is
 * asked afresh, so a start is never refused on an old answer.
 */
export function isKnownStartable(lastSeenMs: number | undefined, now = Date.now()): boolean {
  return lastSeenMs !== undefined && now - lastSeenMs < startableWithoutAskingMs;
}

/** What starts of one client learnt of its task queues: the newest poll seen on each. */
export class StartableQueues {
  private readonly lastSeenMs = new Map<string, number>();

  lastSeen(taskQueue: string): number | undefined {
    return this.lastSeenMs.get(taskQueue);
  }

  /** Remembers a startable answer; a newer poll replaces an older one. */
  note(presence: WorkerPresence): void {
    if (presence.lastSeen === null) return;
    const seen = Date.parse(presence.lastSeen);
    if (seen > (this.lastSeenMs.get(presence.taskQueue) ?? -Infinity)) this.lastSeenMs.set(presence.taskQueue, seen);
  }
}

/**
 * Refuses a start on a task queue no worker has polled ({@link isStartable}), as a session refuses
 * a message no worker would take: the same DescribeTaskQueue look and NoWorkerError. With
 * `known` (what the client's earlier starts learnt), a queue a worker polled lately is not asked
 * again ({@link isKnownStartable}): a client that starts many runs asks once every few minutes,
 * not once per run.
 *
 * @throws NoWorkerError naming the task queue and `allowNoWorker`.
 */
export async function requireWorkerForStart(client: Client, taskQueue: string, known?: StartableQueues): Promise<void> {
  if (known && isKnownStartable(known.lastSeen(taskQueue))) return;
  let presence = await workerPresence(client, taskQueue);
  for (const ms of lookAgainMs) {
    if (isStartable(presence)) {
      known?.note(presence);
      return;
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, ms));
    presence = await workerPresence(client, taskQueue);
  }
  if (!isStartable(presence)) throw new NoWorkerError(presence, noWorkerPolls(presence), refusedStartMessage(presence));
  known?.note(presence);
}
