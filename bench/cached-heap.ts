/**
 * Heap a worker keeps for each cached run that waits (for a human, the usual state of an open
 * agent run). Workflow threads' heaps cannot be read from outside, so each system gets a worker
 * of its own that runs workflows on the main thread (`debugMode`, the same reusable context the
 * threads use): heap after forced collections, N waiting runs started, heap again. The runs are
 * terminated afterwards.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Client } from '@temporalio/client';
import { Worker, type NativeConnection, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { AgentClient } from '../client/agent-client';
import type { RunInput } from '../contracts';
import { rawActivities, rawReleaseSignalName, rawWaitingQueryName, type RawLoopInput } from './raw-contract';
import type { SystemName } from './systems';
import type { BenchWorkerOptions } from './worker';
import { runInputFor } from './workload';
import { waitFor } from '../test/support/wait';

/** Bytes of heap per cached waiting run. */
export interface CachedHeap {
  readonly runs: number;
  readonly bytesPerRun: number;
}

/** What the measure needs from the benchmark. */
export interface CachedHeapContext {
  readonly client: Client;
  readonly agents: (taskQueue: string) => AgentClient;
  readonly connection: NativeConnection;
  readonly namespace: string;
  readonly idPrefix: string;
  readonly rawBundle: WorkflowBundleWithSourceMap;
  /** A durable-agents worker on this task queue with these extra worker options. */
  readonly createDurableWorker: (taskQueue: string, extra: BenchWorkerOptions['extra']) => Promise<Worker>;
  readonly progress: (line: string) => void;
}

let collect: (() => void) | undefined;

/** Heap used after full collections (V8's gc, exposed for this measure only). */
function settledHeap(): number {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  for (let i = 0; i < 4; i++) collect();
  return process.memoryUsage().heapUsed;
}

/** One turn of one echo call, then a call of `transfer` above its confirmation threshold: the run waits for approval. */
function waitingRunInput(): RunInput {
  const input = runInputFor({ turns: 1, callsPerTurn: 1 });
  const steps = [
    { type: 'tool_calls', calls: [{ name: 'echo', args: { text: 'before the wait' } }] },
    { type: 'tool_calls', calls: [{ name: 'transfer', args: { to: 'bench', amount: 500 } }] },
    { type: 'final', text: 'done' },
  ];
  return { ...input, plannerOptions: { steps } };
}

async function perRun(label: string, runs: number, start: (i: number) => Promise<string>, waiting: (id: string) => Promise<boolean>): Promise<{ bytesPerRun: number; ids: string[] }> {
  const waited = (what: string, id: string): Promise<true> => waitFor(what, async () => ((await waiting(id)) ? true : undefined), 60_000);
  const warm = await start(-1);
  await waited(`${label} warm-up run waiting`, warm);
  const before = settledHeap();
  const ids: string[] = [];
  for (let i = 0; i < runs; i++) ids.push(await start(i));
  for (const id of ids) await waited(`${label} run ${id} waiting`, id);
  const after = settledHeap();
  return { bytesPerRun: (after - before) / runs, ids: [warm, ...ids] };
}

/** Heap per cached waiting run of durable-agents and temporal-raw (regular activities). */
export async function measureCachedHeap(ctx: CachedHeapContext, runs: number): Promise<Map<SystemName, CachedHeap>> {
  const results = new Map<SystemName, CachedHeap>();
  const options = { debugMode: true as const, maxCachedWorkflows: runs + 10 };

  ctx.progress(`cached heap: ${runs} durable-agents runs waiting for an approval`);
  const durableQueue = `${ctx.idPrefix}-heap`;
  const agents = ctx.agents(durableQueue);
  const durableWorker = await ctx.createDurableWorker(durableQueue, options);
  await durableWorker.runUntil(async () => {
    const { bytesPerRun, ids } = await perRun(
      'durable-agents',
      runs,
      async (i) => (await agents.start(waitingRunInput(), { workflowId: `${ctx.idPrefix}-heap-durable-${i}` })).workflowId,
      async (id) => (await agents.status(id)).status === 'awaiting',
    );
    results.set('durable-agents', { runs, bytesPerRun });
    for (const id of ids) await ctx.client.workflow.getHandle(id).terminate('cached heap measured');
  });

  ctx.progress(`cached heap: ${runs} temporal-raw runs waiting for a signal`);
  const rawQueue = `${ctx.idPrefix}-heap-raw`;
  const rawWorker = await Worker.create({ connection: ctx.connection, namespace: ctx.namespace, taskQueue: rawQueue, workflowBundle: ctx.rawBundle, activities: rawActivities, identity: 'bench-heap-raw', ...options });
  await rawWorker.runUntil(async () => {
    const input: RawLoopInput = { turns: 1, callsPerTurn: 1 };
    const { bytesPerRun, ids } = await perRun(
      'temporal-raw',
      runs,
      async (i) => (await ctx.client.workflow.start('rawWaitingLoop', { taskQueue: rawQueue, workflowId: `${ctx.idPrefix}-heap-raw-${i}`, args: [input] })).workflowId,
      (id) => ctx.client.workflow.getHandle(id).query<boolean>(rawWaitingQueryName),
    );
    results.set('temporal-raw', { runs, bytesPerRun });
    for (const id of ids) await ctx.client.workflow.getHandle(id).signal(rawReleaseSignalName);
  });
  return results;
}
