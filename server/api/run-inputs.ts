import { z } from 'zod';
import { pendingInputsSchema } from '../../contracts';
import type { AgentClient } from '../../client/agent-client';
import { flattenTree, pendingInputsTree, runTree, type RunTree } from '../../client/run-tree';
import { readOrRecorded } from '../../client/no-worker-reads';
import { noWorkerSchema, recordedPending, recordedTree, recordedWaitSchema } from './no-worker';
import type { ServerContext } from '../context';
import { route, type AnyRoute } from '../routes';
import { runTimes } from './run-times';
import { treeOperationRoutes } from './run-operations';

const treeRunSchema = z.object({
  workflowId: z.string(),
  agent: z.string(),
  status: z.string(),
  path: z.array(z.string()),
  toolCallId: z.string().optional(),
  /** When the run's current execution started, and closed once it has (Temporal's clock). */
  startTime: z.string().optional(),
  closeTime: z.string().optional(),
});

/** What one run of a tree waits on, with its workflow id and path (call ids from the run asked about down). */
const treePendingSchema = pendingInputsSchema.unwrap().extend({ workflowId: z.string(), path: z.array(z.string()) });

const treeResponseSchema = z.object({
  runs: z.array(treeRunSchema),
  pending: z.array(treePendingSchema),
  /** Set when no worker could answer: `runs` as their histories record them, `pending` empty, `waiting` the runs recorded as waiting for a person. */
  source: z.literal('history').optional(),
  noWorker: noWorkerSchema.optional(),
  waiting: z.array(recordedWaitSchema).optional(),
});

/**
 * The run's own pending inputs, and `tree`: what it and its sub-agent runs wait on, one list.
 * When no worker can answer: `source: "history"`, `noWorker`, empty lists, and `waiting`: the
 * runs of the tree whose histories say they wait for a person.
 */
const runPendingResponseSchema = pendingInputsSchema
  .unwrap()
  .extend({ tree: z.array(treePendingSchema), source: z.literal('history').optional(), noWorker: noWorkerSchema.optional(), waiting: z.array(recordedWaitSchema).optional() });

/** How long the tree route waits for each run's worker before it reads the histories instead. */
const treeQueryTimeoutMs = 5_000;

/** How long the pending route waits for a worker that polls the run's task queue before it reads the histories instead. */
const pendingQueryTimeoutMs = 5_000;

/**
 * The runs of a tree, root first, each with when it started and closed (one describe per run:
 * a read of the server's record of the execution, free for the run and needing no worker). A run
 * that cannot be described is listed without its times.
 */
async function treeRuns(agents: AgentClient, tree: RunTree): Promise<z.infer<typeof treeRunSchema>[]> {
  return Promise.all(
    flattenTree(tree).map(async (run) => ({ ...run, path: [...run.path], ...(await runTimes(agents, run.workflowId)) })),
  );
}

/**
 * What a run and its sub-agent runs wait on from humans, and answers routed down the tree (the
 * tree variants of the operations table, run-operations.ts). A run's own decisions and answers are
 * operations (server/operations.ts).
 */
export function runInputRoutes(ctx: ServerContext): AnyRoute[] {
  const { agents } = ctx;
  const tags = ['human inputs'];
  return [
    route({
      method: 'get',
      path: '/api/runs/:id/pending',
      access: 'viewer',
      summary: 'Calls waiting for confirmation and the open await barrier, of the run and its sub-agent runs',
      description:
        '`approvals` and `await` are the run\'s own; `tree` lists every run of its tree that waits (this run first, path `[]`), each with its workflow id and path. Decide or answer a sub-agent run through the tree routes with that path. ' +
        'When no worker can answer (none polls the run\'s task queue: at once; else after 5 s), `source: "history"` with `noWorker` and `waiting`, the runs whose histories say they wait for a person.',
      tags,
      response: runPendingResponseSchema,
      handle: ({ params }) => {
        const id = params.id ?? '';
        return readOrRecorded(
          agents,
          id,
          () => agents.pendingInputs(id, { timeoutMs: pendingQueryTimeoutMs }),
          (why) => recordedPending(agents, id, why),
        );
      },
    }),
    route({
      method: 'get',
      path: '/api/runs/:id/tree',
      access: 'viewer',
      summary: 'The run and its sub-agent runs (agent tools), and what each of them waits on from humans',
      description:
        'Runs are listed root first, each with its status (a running sub-agent run\'s own, e.g. `awaiting`), the call that started it, and when it started and closed; `path` is the call ids from this run down. ' +
        'Answer a sub-agent through the tree routes with that path, or on its own run. Reading costs a status query, a describe and, for open runs, a pending-inputs query per run: nothing is written to any run. ' +
        'When no worker can answer (none polls the run\'s task queue: at once; else after 5 s), the runs as their histories record them, with `source: "history"`, `noWorker` and `waiting`.',
      tags,
      response: treeResponseSchema,
      handle: async ({ params }) => {
        const id = params.id ?? '';
        return readOrRecorded(
          agents,
          id,
          async () => {
            // One tree for both: a parent learns of a child's start a little after the child runs.
            const tree = await runTree(agents, id, { timeoutMs: treeQueryTimeoutMs });
            const [runs, pending] = await Promise.all([treeRuns(agents, tree), pendingInputsTree(agents, id, tree, { timeoutMs: treeQueryTimeoutMs })]);
            return { runs, pending };
          },
          (why) => recordedTree(agents, id, why),
        );
      },
    }),
    ...treeOperationRoutes(agents),
  ];
}
