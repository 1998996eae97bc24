/**
 * `npm run bench [-- --smoke] [-- --worker-options '{"maxCachedWorkflows":100}']`
 *
 * Starts its own Temporal dev server (port 7433, SQLite under bench/results/) and an
 * in-process worker, runs synthetic agent loops with the `scripted` agent and the no-op
 * `echo` tool, measures latency, throughput, fan-out, history size and replay time, and
 * compares every figure with the same loop run in-process without durability. Progress goes
 * to stderr, the table to stdout, all figures to bench/results/. Never asserts timings.
 */
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { AgentClient } from '../client/agent-client';
import { buildWorkflowBundle } from '../worker/create-worker';
import { measureBaseline } from './baseline-scenarios';
import type { DurableContext } from './durable';
import { historyMarginal, type HistorySize } from './history';
import { measureHistory } from './history';
import { machineFacts } from './machine';
import { fullPlan, smokePlan, type BenchPlan } from './plan';
import { renderFacts, renderTable, writeResults } from './report';
import { buildRows, type BenchResults, type DurableResults } from './results';
import { measureLatency, measureThroughput, warmUp } from './scenarios';
import { resultsDir, startBenchServer } from './server';
import { createBenchWorker, workerTuningSchema, type WorkerTuning } from './worker';

const started = performance.now();

function progress(line: string): void {
  process.stderr.write(`[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
}

function parseCli(argv: readonly string[]): { plan: BenchPlan; tuning: WorkerTuning } {
  const { values } = parseArgs({
    args: [...argv],
    options: { smoke: { type: 'boolean', default: false }, 'worker-options': { type: 'string' } },
    strict: true,
  });
  const tuning = workerTuningSchema.safeParse(JSON.parse(values['worker-options'] ?? '{}'));
  if (!tuning.success) throw new Error(`--worker-options: ${tuning.error.message}`);
  return { plan: values.smoke ? smokePlan : fullPlan, tuning: tuning.data };
}

async function runDurable(ctx: DurableContext, plan: BenchPlan): Promise<DurableResults> {
  await warmUp(ctx, plan);
  const s1 = await measureLatency(ctx, 's1', plan.s1.shape, plan.s1.repeats);
  const s2 = await measureThroughput(ctx, 's2', plan.s2.shape, plan.s2.runs);
  const s3 = await measureLatency(ctx, 's3', plan.s3.shape, plan.s3.repeats);
  const history: HistorySize[] = [];
  for (const turns of plan.historyTurns) history.push(await measureHistory(ctx, turns));
  return { s1, s2, s3, history, historyMarginal: historyMarginal(history) };
}

async function main(): Promise<void> {
  const { plan, tuning } = parseCli(process.argv.slice(2));
  const startedAt = new Date().toISOString();
  const idPrefix = `bench-${startedAt.replace(/[:.]/g, '-')}`;
  Runtime.install({ logger: new DefaultLogger('WARN') });
  progress(`mode ${plan.mode}; starting a fresh dev server`);
  const server = await startBenchServer((line) => progress(`server: ${line}`));
  try {
    const machine = machineFacts();
    progress('bundling workflow code');
    const workflowBundle = await buildWorkflowBundle();
    const config = { address: server.address, namespace: server.namespace, taskQueue: idPrefix };
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const connection = await Connection.connect({ address: server.address });
    let durable: DurableResults;
    try {
      const worker = await createBenchWorker({ config, connection: nativeConnection, workflowBundle, tuning });
      const client = new Client({ connection, namespace: server.namespace });
      const ctx: DurableContext = { agents: new AgentClient(client, config.taskQueue), client, workflowBundle, idPrefix, progress };
      durable = await worker.runUntil(() => runDurable(ctx, plan));
    } finally {
      await connection.close();
      await nativeConnection.close();
    }
    const baseline = await measureBaseline(plan, progress);
    const rows = buildRows(plan, durable, baseline);
    const results: BenchResults = {
      startedAt,
      durationMs: performance.now() - started,
      plan,
      machine,
      workerTuning: tuning,
      durable,
      baseline,
      rows,
    };
    const file = writeResults(resultsDir, results);
    process.stdout.write(`${renderFacts(results)}\n\n${renderTable(rows)}\n`);
    progress(`results written to ${file} and latest.json`);
  } finally {
    progress('stopping the dev server');
    await server.stop();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    progress(`${signal}: shutting down the worker and the dev server`);
    process.exitCode = 130;
  });
}

main().then(
  () => progress('done'),
  (err: unknown) => {
    progress(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  },
);
