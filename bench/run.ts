/**
 * `npm run bench [-- --smoke | --latency] [-- --worker-options '{"maxCachedWorkflows":100}']`
 *
 * Starts its own Temporal dev server (port 7433, or free ports when another benchmark holds it; SQLite under bench/results/) and an
 * in-process worker, runs synthetic agent loops with the `scripted` agent and the no-op
 * `echo` tool, measures latency, throughput, fan-out, history size and replay time, and
 * compares every figure with the same loop run in-process without durability. Progress goes
 * to stderr, the table to stdout, all figures to bench/results/. Never asserts timings.
 */
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { AgentClient } from '../client/agent-client';
import { bundleAgentWorkflows } from '../worker/create-worker';
import { measureCachedHeap } from './cached-heap';
import { historyMarginal, recordHistory, replayRecorded, summarizeHistory, type HistorySize, type RecordedHistory } from './history';
import { loadAverages, machineFacts } from './machine';
import { measureReplayCosts } from './replay-cost';
import { fullPlan, latencyPlan, smokePlan, type BenchPlan } from './plan';
import { renderFacts, renderTable, writeResults } from './report';
import { buildRows, type BenchResults, type SystemResults } from './results';
import { complete, measureLatency, measureThroughput, warmUp, type BenchContext } from './scenarios';
import { resultsDir, startBenchServer } from './server';
import { bundleRawWorkflows, createRawWorker, durableSystem, rawSystem, type SystemName } from './systems';
import { benchWorkflowsPath, createBenchWorker, workerTuningSchema, type WorkerTuning } from './worker';

const started = performance.now();
let interruptedBy: string | undefined;

/** Stops between steps once SIGINT/SIGTERM arrived (the Temporal runtime stops the worker itself). */
function checkInterrupted(): void {
  if (interruptedBy) throw new Error(`interrupted by ${interruptedBy}`);
}

function progress(line: string): void {
  process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
}

function parseCli(argv: readonly string[]): { plan: BenchPlan; tuning: WorkerTuning } {
  const { values } = parseArgs({
    args: [...argv],
    options: { smoke: { type: 'boolean', default: false }, latency: { type: 'boolean', default: false }, 'worker-options': { type: 'string' } },
    strict: true,
  });
  const tuning = workerTuningSchema.safeParse(JSON.parse(values['worker-options'] ?? '{}'));
  if (!tuning.success) throw new Error(`--worker-options: ${tuning.error.message}`);
  if (values.smoke && values.latency) throw new Error('--smoke and --latency: choose one');
  return { plan: values.smoke ? smokePlan : values.latency ? latencyPlan : fullPlan, tuning: tuning.data };
}

async function runScenarios(ctx: BenchContext, plan: BenchPlan): Promise<Record<SystemName, SystemResults>> {
  await warmUp(ctx, plan);
  checkInterrupted();
  const s1 = await measureLatency(ctx, 's1', plan.s1.shape, plan.s1.repeats);
  checkInterrupted();
  const s2 = await measureThroughput(ctx, 's2', plan.s2.shape, plan.s2.runs, plan.s2.rounds);
  checkInterrupted();
  const s3 = await measureLatency(ctx, 's3', plan.s3.shape, plan.s3.repeats);
  const history = new Map<SystemName, HistorySize[]>(ctx.systems.map((s) => [s.name, []]));
  for (const turns of plan.historyTurns) {
    const recorded: RecordedHistory[] = [];
    for (const system of ctx.systems) {
      checkInterrupted();
      recorded.push(await recordHistory(ctx, system, turns));
    }
    checkInterrupted();
    await replayRecorded(ctx, recorded, plan.historyReplays);
    for (const r of recorded) history.get(r.system.name)?.push(summarizeHistory(ctx, r));
  }
  checkInterrupted();
  const replayCosts = await measureReplayCosts(ctx, plan.replayCost, plan.s3.shape);
  const results: Partial<Record<SystemName, SystemResults>> = {};
  for (const { name } of ctx.systems) {
    const sizes = history.get(name) ?? [];
    results[name] = { s1: s1[name], s2: s2[name], s3: s3[name], history: sizes, historyMarginal: historyMarginal(sizes), replayCost: replayCosts.get(name) };
  }
  return complete(results, ctx);
}

async function main(): Promise<void> {
  const { plan, tuning } = parseCli(process.argv.slice(2));
  const startedAt = new Date().toISOString();
  const loadAtStart = loadAverages();
  const idPrefix = `bench-${startedAt.replace(/[:.]/g, '-')}`;
  Runtime.install({ logger: new DefaultLogger('WARN') });
  progress(`mode ${plan.mode}; starting a fresh dev server`);
  let stopping = false;
  // The dev server complains about every poller it drops while it stops: not worth showing.
  const server = await startBenchServer((line) => {
    if (!stopping) progress(`server: ${line}`);
  });
  try {
    const machine = machineFacts();
    progress('bundling workflow code (durable-agents, temporal-raw)');
    const workflowBundle = await bundleAgentWorkflows(benchWorkflowsPath);
    const rawBundle = await bundleRawWorkflows();
    checkInterrupted();
    const config = { address: server.address, namespace: server.namespace, taskQueue: idPrefix };
    const rawTaskQueue = `${idPrefix}-raw`;
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const connection = await Connection.connect({ address: server.address });
    let systems: Record<SystemName, SystemResults>;
    try {
      const worker = await createBenchWorker({ config, connection: nativeConnection, workflowBundle, tuning });
      const rawWorker = await createRawWorker(nativeConnection, server.namespace, rawTaskQueue, rawBundle);
      const client = new Client({ connection, namespace: server.namespace });
      const ctx: BenchContext = {
        systems: [
          durableSystem(new AgentClient(client, config.taskQueue), workflowBundle),
          durableSystem(new AgentClient(client, config.taskQueue), workflowBundle, 'durable-agents-local'),
          rawSystem('temporal-raw', client, rawTaskQueue, rawBundle),
          rawSystem('temporal-raw-local', client, rawTaskQueue, rawBundle),
        ],
        client,
        idPrefix,
        progress,
        serverPid: server.pid,
      };
      systems = await worker.runUntil(() => rawWorker.runUntil(() => runScenarios(ctx, plan)));
      checkInterrupted();
      const heap = await measureCachedHeap(
        {
          client,
          agents: (taskQueue) => new AgentClient(client, taskQueue),
          connection: nativeConnection,
          namespace: server.namespace,
          idPrefix,
          rawBundle,
          createDurableWorker: (taskQueue, extra) => createBenchWorker({ config: { ...config, taskQueue }, connection: nativeConnection, workflowBundle, tuning, extra }),
          progress,
        },
        plan.cachedHeapRuns,
      );
      systems = Object.fromEntries(Object.entries(systems).map(([name, r]) => [name, { ...r, cachedHeap: heap.get(name as SystemName) }])) as Record<SystemName, SystemResults>;
    } finally {
      // After an interrupt, client calls of the abandoned scenario may still be retrying: leave
      // the client connection to process exit instead of failing them with "channel shut down".
      if (!interruptedBy) await connection.close();
      await nativeConnection.close();
    }
    checkInterrupted();
    const rows = buildRows(plan, systems);
    const results: BenchResults = {
      startedAt,
      durationMs: performance.now() - started,
      plan,
      machine,
      load: { atStart: loadAtStart, atEnd: loadAverages() },
      workerTuning: tuning,
      systems,
      rows,
    };
    const file = writeResults(resultsDir, results);
    process.stdout.write(`${renderFacts(results)}\n\n${renderTable(rows)}\n`);
    progress(`results written to ${file} and latest.json`);
  } finally {
    progress('stopping the dev server');
    stopping = true;
    await server.stop();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    progress(`${signal}: stopping after the current step; shutting down the worker and the dev server`);
    interruptedBy = signal;
    process.exitCode = 130;
  });
}

main().then(
  () => progress('done'),
  (err: unknown) => {
    if (interruptedBy) {
      progress(`stopped: interrupted by ${interruptedBy}`);
      process.exit(130);
    }
    progress(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  },
);
