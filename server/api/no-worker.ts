import { z } from 'zod';
import type { AgentClient } from '../../client/agent-client';
import type { NoWorkerRead } from '../../client/no-worker-reads';
import type { RecordedRunTree } from '../../client/run-tree';
import { recordedWaits } from '../../client/recorded-waits';
import { runStatusSchema, type RunStatus } from '../../contracts';
import { ApiError } from '../errors';
import { runTimes } from './run-times';

/**
 * Set on a read answered from the run's history because no worker could answer it: the run's
 * task queue, when a worker last polled it (the server's DescribeTaskQueue; null when none did in
 * the last five minutes) and why the read did not ask the run.
 */
export const noWorkerSchema = z.object({
  taskQueue: z.string(),
  /** Whether a worker polled the queue within about a minute (then it did not answer in time: it may have crashed). */
  polled: z.boolean(),
  lastSeen: z.string().nullable(),
  reason: z.string(),
});
export type NoWorker = z.infer<typeof noWorkerSchema>;

export function noWorkerOf(why: NoWorkerRead): NoWorker {
  return { ...why.presence, reason: why.reason };
}

/** A run of a tree that waits for a person as its history records it; what it asks needs a worker to read. */
export const recordedWaitSchema = z.object({ workflowId: z.string(), agent: z.string().nullable(), path: z.array(z.string()) });

/**
 * GET /api/runs/:id/pending when no worker can answer: no approvals or await items (they live in
 * the run), and the runs of the tree whose histories say they wait for a person.
 */
export async function recordedPending(agents: AgentClient, workflowId: string, why: NoWorkerRead) {
  const waiting = recordedWaits(await agents.treeFromHistory(workflowId)).map((w) => ({ ...w, path: [...w.path] }));
  return { source: 'history' as const, noWorker: noWorkerOf(why), approvals: [], tree: [], waiting };
}

/**
 * GET /api/runs/:id/tree when no worker can answer: the runs as their histories record them
 * (status as last recorded, times from the server's record), nothing pending that needs a worker
 * to read, and the runs recorded as waiting for a person.
 */
export async function recordedTree(agents: AgentClient, workflowId: string, why: NoWorkerRead) {
  const tree = await agents.treeFromHistory(workflowId);
  const runs = await Promise.all(
    flattenRecorded(tree).map(async (run) => ({
      workflowId: run.workflowId,
      agent: run.agent ?? '',
      status: run.status,
      path: [...run.path],
      ...(run.toolCallId ? { toolCallId: run.toolCallId } : {}),
      ...(await runTimes(agents, run.workflowId)),
    })),
  );
  const waiting = recordedWaits(tree).map((w) => ({ ...w, path: [...w.path] }));
  return { source: 'history' as const, noWorker: noWorkerOf(why), runs, pending: [], waiting };
}

function flattenRecorded(tree: RecordedRunTree): RecordedRunTree[] {
  return [tree, ...tree.children.flatMap(flattenRecorded)];
}

/**
 * GET /api/runs/:id/events (JSON) when no worker can answer: no events (the event log lives in
 * the run), the run's recorded status and the steps its history records. A poller keeps its
 * place (`nextAfterSeq` is `after`) and reads the events once a worker returns. A closed run's
 * events need a worker to replay it: 503 at once, naming the task queue.
 *
 * @throws ApiError `unavailable` for a closed run.
 */
export async function recordedEventPage(agents: AgentClient, workflowId: string, after: number, why: NoWorkerRead) {
  const [recorded, steps] = await Promise.all([agents.statusFromHistory(workflowId), agents.historyOf(workflowId)]);
  if (recorded.workflowStatus !== 'RUNNING') {
    throw new ApiError('unavailable', `${why.reason}; the events of run ${workflowId} (${recorded.status}) need a worker to read: its status and result are at GET /api/runs/${workflowId}, its history at /history`);
  }
  const status = runStatusSchema.safeParse(recorded.status);
  return { source: 'history' as const, noWorker: noWorkerOf(why), events: [], nextAfterSeq: after, status: (status.success ? status.data : 'running') as RunStatus, steps };
}
