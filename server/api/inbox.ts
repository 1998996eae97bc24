import { z } from 'zod';
import type { AgentClient } from '../../client/agent-client';
import { listRuns } from '../../client/run-list';
import { pendingInputsTree, runTree } from '../../client/run-tree';
import { agentRunWorkflowType, pendingInputsSchema } from '../../contracts';
import type { ServerContext } from '../context';
import { route, type AnyRoute } from '../routes';
import { readOrRecorded } from '../../client/no-worker-reads';
import { recordedWaits } from '../../client/recorded-waits';
import { noWorkerOf, noWorkerSchema } from './no-worker';

/** Waiting runs the inbox reads at most; more are counted as `truncated`. */
const maxWaitingRuns = 100;
/** Levels of sub-agent runs the inbox climbs to find a waiting run's top run. */
const maxDepth = 16;

/**
 * What one run of a tree waits on, with where it is: call ids from the tree's top run down.
 * `source: "history"`: the run's history says it waits for a person, and no worker can say what
 * it asks (its approvals and await are left empty).
 */
const inboxEntrySchema = pendingInputsSchema.unwrap().extend({ workflowId: z.string(), path: z.array(z.string()), source: z.literal('history').optional() });

/** Everything a tree of runs (a top run and its sub-agent runs) waits on from people. */
const inboxTreeSchema = z.object({
  /** The top run: not a sub-agent run (a session's run is a top run). */
  workflowId: z.string(),
  agent: z.string().optional(),
  startTime: z.string().optional(),
  waiting: z.array(inboxEntrySchema),
  /** Set when no worker could answer for this tree: its entries are what the runs' histories say. */
  noWorker: noWorkerSchema.optional(),
});

export const inboxSchema = z.object({
  trees: z.array(inboxTreeSchema),
  /** More runs wait than the inbox read (it reads the newest {@link maxWaitingRuns}). */
  truncated: z.boolean(),
});
export type Inbox = z.infer<typeof inboxSchema>;

/** The top run above a run: its parent while the parent is an agent run (a session is not). */
async function topRun(agents: AgentClient, workflowId: string, known: Map<string, Promise<string>>): Promise<string> {
  let current = workflowId;
  let description = await agents.client.workflow.getHandle(current).describe();
  for (let depth = 0; depth < maxDepth; depth++) {
    const parent = description.parentExecution;
    if (!parent?.workflowId) return current;
    const cached = known.get(parent.workflowId);
    if (cached) return cached;
    const parentDescription = await agents.client.workflow
      .getHandle(parent.workflowId, parent.runId ?? undefined)
      .describe()
      .catch(() => undefined);
    if (parentDescription?.type !== agentRunWorkflowType) return current;
    current = parent.workflowId;
    description = parentDescription;
  }
  return current;
}

type InboxTree = z.infer<typeof inboxTreeSchema>;

/** What a tree waits on, asked of its runs (a worker answers). */
async function treeWaits(agents: AgentClient, workflowId: string): Promise<Pick<InboxTree, 'agent' | 'waiting' | 'noWorker'>> {
  const tree = await runTree(agents, workflowId, { timeoutMs: 5_000 });
  const pending = await pendingInputsTree(agents, workflowId, tree, { timeoutMs: 5_000 });
  return { agent: tree.agent, waiting: pending.map((p) => ({ ...p, path: [...p.path], approvals: [...p.approvals] })) };
}

/** What a tree's histories say waits: each run recorded as awaiting, with what it asks left empty. */
async function recordedTreeWaits(agents: AgentClient, workflowId: string, noWorker: InboxTree['noWorker']): Promise<Pick<InboxTree, 'agent' | 'waiting' | 'noWorker'>> {
  const tree = await agents.treeFromHistory(workflowId);
  const waiting = recordedWaits(tree).map((w) => ({ workflowId: w.workflowId, path: [...w.path], approvals: [], source: 'history' as const }));
  return { ...(tree.agent ? { agent: tree.agent } : {}), waiting, ...(noWorker ? { noWorker } : {}) };
}

/**
 * One inbox of everything people are asked, across runs, sessions' runs and sub-agent runs:
 * the runs listed as waiting (AgentStatus `awaiting`), each gathered under its top run with
 * the whole tree's pending inputs, so a sub-agent run's approval shows with its path. A tree no
 * worker can answer for (none polls its task queue: at once; else after 5 s) lists the runs its
 * histories say wait, with `noWorker`.
 */
export async function readInbox(agents: AgentClient): Promise<Inbox> {
  const page = await listRuns(agents, { status: 'awaiting' }, { limit: maxWaitingRuns });
  const waiting = page.entries.filter((e) => e.workflowStatus === 'RUNNING');
  const tops = new Map<string, Promise<string>>();
  for (const entry of waiting) tops.set(entry.workflowId, topRun(agents, entry.workflowId, tops).catch(() => entry.workflowId));
  const topIds = [...new Set(await Promise.all(tops.values()))];
  const byId = new Map(waiting.map((e) => [e.workflowId, e]));
  const trees = await Promise.all(
    topIds.map(async (workflowId) => {
      const entry = byId.get(workflowId);
      const listed = { workflowId, ...(entry?.agent ? { agent: entry.agent } : {}), ...(entry ? { startTime: entry.startTime } : {}) };
      const read = await readOrRecorded(agents, workflowId, () => treeWaits(agents, workflowId), (why) => recordedTreeWaits(agents, workflowId, noWorkerOf(why))).catch(() => undefined);
      return { ...listed, ...(read?.agent ? { agent: read.agent } : {}), waiting: read?.waiting ?? [], ...(read?.noWorker ? { noWorker: read.noWorker } : {}) };
    }),
  );
  return { trees: trees.filter((t) => t.waiting.length > 0), truncated: page.nextPageToken !== undefined };
}

/** GET /api/inbox. */
export function inboxRoutes(ctx: ServerContext): AnyRoute[] {
  return [
    route({
      method: 'get',
      path: '/api/inbox',
      access: 'viewer',
      summary: 'Everything people are asked, across runs, sessions and sub-agent runs, by top run',
      description:
        `Runs listed as waiting (the newest ${maxWaitingRuns}), each gathered under its top run with what its whole tree waits on: each entry is one run's approvals and ` +
        'open await, with its workflow id and its path (call ids from the top run down). Answer an entry on its own run (POST /api/runs/:workflowId/decisions or /answers). ' +
        'Listing is eventually consistent: a run that just began to wait may show a moment later. ' +
        'A tree no worker can answer for (none polls its task queue, or none answered within 5 s) has `noWorker` (its task queue, when a worker last polled it) and lists the runs its histories say wait, each with `source: "history"` and empty approvals: what they ask needs a worker to read.',
      tags: ['human inputs'],
      response: inboxSchema,
      handle: () => readInbox(ctx.agents),
    }),
  ];
}
