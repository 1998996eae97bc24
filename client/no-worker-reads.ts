import { AgentClientError } from './errors';
import { noWorkerAnswered, noWorkerPolls, type WorkerPresence } from './worker-presence';

/** Where {@link readOrRecorded} learns whether a run's task queue is polled: an AgentClient. */
export interface PresenceSource {
  workerPresence(workflowId: string): Promise<WorkerPresence>;
}

/** Why a read shows a run as its history records it instead of asking the run. */
export interface NoWorkerRead {
  /** What the server knows of the workers of the run's task queue. */
  readonly presence: WorkerPresence;
  /** `no worker polls task queue q (last seen …)`, or `no worker answered run r in time (task queue q, last polled …)`. */
  readonly reason: string;
}

/**
 * Why a read falls back to the run's history: `undefined` when a worker polls the run's task
 * queue and the run has not been asked yet (ask it), else the reason, naming the task queue and
 * when a worker last polled it. `unanswered`: the run was asked and no worker answered in time
 * (a worker that crashed a moment ago still looks polled for about a minute).
 */
export function noWorkerRead(workflowId: string, presence: WorkerPresence, unanswered = false, now = Date.now()): NoWorkerRead | undefined {
  if (!presence.polled) return { presence, reason: noWorkerPolls(presence, now) };
  if (!unanswered) return undefined;
  return { presence, reason: noWorkerAnswered(workflowId, presence) };
}

/**
 * Reads a run through its worker (`read`, a query), or through its history (`recorded`) when no
 * worker can answer: at once when no worker polls the run's task queue (one DescribeTaskQueue,
 * no query waits for its deadline), else when the query goes unanswered.
 *
 * @throws what `read` throws, other than `unanswered`; AgentClientError `run_not_found`.
 */
export async function readOrRecorded<T, R>(
  agents: PresenceSource,
  workflowId: string,
  read: () => Promise<T>,
  recorded: (why: NoWorkerRead) => Promise<R>,
): Promise<T | R> {
  const presence = await agents.workerPresence(workflowId);
  const unpolled = noWorkerRead(workflowId, presence);
  if (unpolled) return recorded(unpolled);
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof AgentClientError && err.type === 'unanswered')) throw err;
    return recorded(noWorkerRead(workflowId, presence, true) as NoWorkerRead);
  }
}
