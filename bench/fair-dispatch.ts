/**
 * `npm run bench:fair [-- --a-runs 500 --b-runs 30 --tool-ms 300 --activity-slots 5 --workflow-slots 4 --fairness-args 'matching.enableFairness=true' --no-eager]`
 * (`-- --smoke`: 40 runs of A, 3 of B, for a quick look).
 *
 * Fair dispatch between tenants, measured on Temporal dev servers this script starts: tenant A
 * starts `a-runs` runs at once while tenant B starts one run a second; each run calls the `sleep`
 * tool once (`tool-ms`) and answers. The worker has few slots (`activity-slots`,
 * `workflow-slots`), so A's burst is a real backlog on the task queue. The figure is B's time to
 * its first tool call: from its WorkflowExecutionStarted event to its first ActivityTaskStarted
 * (the server's clock, from the run's history), at p50 and p99, beside B alone on the same worker
 * (idle). Three cases, each on a task queue of its own:
 *
 * - `fairness off`: a dev server as it starts by default, runs with their tenant's keys (the
 *   server ignores fairness keys);
 * - `fairness on, no keys`: a dev server with the fairness settings (`--fairness-args`, each a
 *   `--dynamic-config-value`), runs started without a tenant, as before this release: no keys;
 * - `fairness on`: the same server, A's and B's runs with their tenant as fairness key;
 * - `fairness on, B tier 2`: the same, B's tenant at priority tier 2 (`dispatch: { priority: 2 }`), A's at the default 3.
 *
 * Figures only, never assertions: shared machines are noisy. Results go to stdout and
 * bench/results/fair-dispatch-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { AgentClient } from '../client/agent-client';
import type { RunInput } from '../contracts';
import type { TenantsConfig } from '../contracts/tenant-settings';
import { provisionTemporalCli } from '../testing/temporal-cli';
import { createOwnTestEnv } from '../test/support/test-server';
import { bundleAgentWorkflows } from '../worker/create-worker';
import { loadAverages, machineFacts } from './machine';
import { resultsDir } from './server';
import { percentile } from './stats';
import { benchWorkflowsPath, createBenchWorker } from './worker';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

interface Settings {
  readonly aRuns: number;
  readonly bRuns: number;
  readonly bIdleRuns: number;
  readonly toolMs: number;
  readonly activitySlots: number;
  readonly workflowSlots: number;
  readonly fairnessArgs: readonly string[];
  /** Eager activity execution off (`maxEagerActivityReservationsPerWorkflowTask: 0`): every tool call goes through the task queue's matching. */
  readonly noEager: boolean;
}

interface CaseResult {
  readonly name: string;
  readonly serverArgs: readonly string[];
  readonly keys: boolean;
  /** B alone: ms from start to its first tool call, one per run. */
  readonly idle: number[];
  /** B while A's burst is served. */
  readonly loaded: number[];
  /** The parts of B's loaded times (see {@link timeToFirstTool}). */
  readonly loadedParts: FirstTool[];
  /** A's runs: ms from start to the first tool call, and from the burst's start until the last of them ended. */
  readonly aFirstTool: number[];
  readonly aDrainMs: number;
}

const started = performance.now();
function progress(line: string): void {
  process.stderr.write(`[bench:fair ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
}

function parseCli(argv: readonly string[]): Settings {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      smoke: { type: 'boolean', default: false },
      'a-runs': { type: 'string' },
      'b-runs': { type: 'string' },
      'tool-ms': { type: 'string', default: '300' },
      'activity-slots': { type: 'string', default: '5' },
      'workflow-slots': { type: 'string', default: '4' },
      'fairness-args': { type: 'string', default: 'matching.enableFairness=true' },
      'no-eager': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const int = (flag: string, raw: string | undefined, fallback: number): number => {
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} must be a positive integer (got ${raw})`);
    return n;
  };
  const bRuns = int('b-runs', values['b-runs'], values.smoke ? 3 : 30);
  return {
    aRuns: int('a-runs', values['a-runs'], values.smoke ? 40 : 500),
    bRuns,
    bIdleRuns: Math.min(bRuns, 10),
    toolMs: int('tool-ms', values['tool-ms'], 300),
    activitySlots: int('activity-slots', values['activity-slots'], 5),
    workflowSlots: int('workflow-slots', values['workflow-slots'], 4),
    noEager: values['no-eager'] ?? false,
    fairnessArgs: (values['fairness-args'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .flatMap((kv) => ['--dynamic-config-value', kv]),
  };
}

function ms(e: HistoryEvent | undefined): number {
  if (!e?.eventTime) throw new Error('event without time');
  return Number(e.eventTime.seconds) * 1000 + Math.floor((e.eventTime.nanos ?? 0) / 1e6);
}

/**
 * From the run's start to its first tool activity's start, on the server's clock, and its parts:
 * the first workflow task's wait in the queue (scheduled → started), the task itself (started →
 * completed), and the tool's wait in the queue (scheduled → started).
 */
interface FirstTool {
  readonly total: number;
  readonly workflowTaskWait: number;
  readonly workflowTask: number;
  readonly activityWait: number;
}

async function timeToFirstTool(env: TestWorkflowEnvironment, workflowId: string): Promise<FirstTool> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const find = (has: (e: HistoryEvent) => unknown) => events.find((e) => has(e));
  const firstTool = find((e) => e.activityTaskStartedEventAttributes);
  if (!firstTool) throw new Error(`run ${workflowId} never started a tool`);
  const scheduled = events.find((e) => String(e.eventId) === String(firstTool.activityTaskStartedEventAttributes?.scheduledEventId));
  const taskScheduled = find((e) => e.workflowTaskScheduledEventAttributes);
  const taskStarted = find((e) => e.workflowTaskStartedEventAttributes);
  const taskCompleted = find((e) => e.workflowTaskCompletedEventAttributes);
  return {
    total: ms(firstTool) - ms(events[0]),
    workflowTaskWait: ms(taskStarted) - ms(taskScheduled),
    workflowTask: ms(taskCompleted) - ms(taskStarted),
    activityWait: ms(firstTool) - ms(scheduled),
  };
}

function input(tenant: string | undefined, toolMs: number, label: string): RunInput {
  return {
    agent: 'scripted',
    messages: [{ role: 'user', content: label }],
    plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: toolMs } }] }, { type: 'final', text: 'done' }] },
    ...(tenant !== undefined ? { tenant } : {}),
  };
}

/** B's runs, one a second, each awaited to its end; answers each one's time to its first tool call. */
async function tenantB(env: TestWorkflowEnvironment, agents: AgentClient, runs: number, settings: Settings, keys: boolean): Promise<FirstTool[]> {
  const ids: Promise<string>[] = [];
  for (let i = 0; i < runs; i++) {
    const at = performance.now();
    ids.push(agents.start(input(keys ? 'tenant-b' : undefined, settings.toolMs, `b${i}`)).then(async ({ workflowId }) => (await agents.result(workflowId), workflowId)));
    await delay(Math.max(0, 1000 - (performance.now() - at)));
  }
  const done = await Promise.all(ids);
  return Promise.all(done.map((id) => timeToFirstTool(env, id)));
}

/** A's burst: every run started at once (50 starts in flight), then awaited to its end. */
async function tenantA(env: TestWorkflowEnvironment, agents: AgentClient, settings: Settings, keys: boolean): Promise<{ firstTool: number[]; drainMs: number }> {
  const at = performance.now();
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < settings.aRuns) {
        const i = next++;
        ids.push((await agents.start(input(keys ? 'tenant-a' : undefined, settings.toolMs, `a${i}`))).workflowId);
      }
    }),
  );
  progress(`  A: ${ids.length} runs started in ${((performance.now() - at) / 1000).toFixed(1)} s`);
  await Promise.all(ids.map((id) => agents.result(id)));
  const drainMs = performance.now() - at;
  const firstTool: number[] = [];
  for (const id of ids) firstTool.push((await timeToFirstTool(env, id)).total);
  return { firstTool, drainMs };
}

async function runCase(env: TestWorkflowEnvironment, workflowBundle: Awaited<ReturnType<typeof bundleAgentWorkflows>>, settings: Settings, name: string, serverArgs: readonly string[], keys: boolean, tenants?: TenantsConfig): Promise<CaseResult> {
  const taskQueue = `bench-fair-${name.replace(/[^a-z]+/g, '-')}-${Date.now()}`;
  const namespace = env.namespace ?? 'default';
  const worker = await createBenchWorker({
    config: { address: env.address, namespace, taskQueue },
    connection: env.nativeConnection,
    workflowBundle,
    tuning: {
      maxConcurrentActivityTaskExecutions: settings.activitySlots,
      maxConcurrentWorkflowTaskExecutions: settings.workflowSlots,
      ...(settings.noEager ? { maxEagerActivityReservationsPerWorkflowTask: 0 } : {}),
    },
  });
  return worker.runUntil(async () => {
    const agents = new AgentClient(env.client, taskQueue, true, tenants ? { tenants } : {});
    progress(`${name}: B alone, ${settings.bIdleRuns} runs a second apart`);
    const idle = (await tenantB(env, agents, settings.bIdleRuns, settings, keys)).map((t) => t.total);
    progress(`${name}: A starts ${settings.aRuns} runs at once, B one a second (${settings.bRuns})`);
    const [a, loaded] = await Promise.all([tenantA(env, agents, settings, keys), tenantB(env, agents, settings.bRuns, settings, keys)]);
    return { name, serverArgs, keys, idle, loaded: loaded.map((t) => t.total), loadedParts: loaded, aFirstTool: a.firstTool, aDrainMs: a.drainMs };
  });
}

function row(r: CaseResult): string {
  const p = (xs: number[], q: number) => percentile(xs, q).toFixed(0).padStart(7);
  const idle99 = percentile(r.idle, 0.99);
  return `${r.name.padEnd(22)} ${p(r.idle, 0.5)} ${p(r.idle, 0.99)} ${p(r.loaded, 0.5)} ${p(r.loaded, 0.99)} ${(percentile(r.loaded, 0.99) / idle99).toFixed(1).padStart(8)}× ${p(r.aFirstTool, 0.5)} ${(r.aDrainMs / 1000).toFixed(1).padStart(8)}`;
}

function parts(r: CaseResult): string {
  const pp = (pick: (t: FirstTool) => number) => {
    const xs = r.loadedParts.map(pick);
    return `${percentile(xs, 0.5).toFixed(0).padStart(6)} / ${percentile(xs, 0.99).toFixed(0).padStart(6)}`;
  };
  return `${r.name.padEnd(22)} ${pp((t) => t.workflowTaskWait)}   ${pp((t) => t.workflowTask)}   ${pp((t) => t.activityWait)}`;
}

async function main(): Promise<void> {
  const settings = parseCli(process.argv.slice(2));
  const cli = provisionTemporalCli();
  if (cli) process.env.TEMPORAL_CLI_PATH = cli.path;
  const machine = machineFacts();
  const loadAtStart = loadAverages();
  progress('bundling workflow code');
  const workflowBundle = await bundleAgentWorkflows(benchWorkflowsPath);
  const results: CaseResult[] = [];
  for (const server of [
    { args: [] as readonly string[], cases: [{ name: 'fairness off', keys: true } as { name: string; keys: boolean; tenants?: TenantsConfig }] },
    {
      args: settings.fairnessArgs,
      cases: [
        { name: 'fairness on, no keys', keys: false },
        { name: 'fairness on', keys: true },
        { name: 'fairness on, B tier 2', keys: true, tenants: { tenants: { 'tenant-b': { dispatch: { priority: 2 } } } } },
      ],
    },
  ]) {
    progress(`starting a dev server ${server.args.length ? `with ${server.args.filter((a) => a !== '--dynamic-config-value').join(' ')}` : 'with its defaults'}`);
    const env = await createOwnTestEnv(server.args);
    try {
      for (const c of server.cases) results.push(await runCase(env, workflowBundle, settings, c.name, server.args, c.keys, c.tenants));
    } finally {
      await env.teardown();
    }
  }
  const version = cli ? `${cli.path}` : 'the SDK-provided CLI';
  process.stdout.write(
    `\nB's time to first tool call (ms, start → first ActivityTaskStarted, server clock); A: ${settings.aRuns} runs at once, B: one a second (${settings.bRuns}; ${settings.bIdleRuns} alone),\n` +
      `tool ${settings.toolMs} ms, worker ${settings.activitySlots} activity / ${settings.workflowSlots} workflow task slots${settings.noEager ? ', eager activities off' : ''}; fairness on = ${settings.fairnessArgs.filter((a) => a !== '--dynamic-config-value').join(' ')}; CLI ${version}\n\n` +
      `${'case'.padEnd(22)} ${'idle p50'.padStart(7)} ${'idle p99'.padStart(7)} ${'B p50'.padStart(7)} ${'B p99'.padStart(7)} ${'p99/idle'.padStart(9)} ${'A p50'.padStart(7)} ${'A drain s'.padStart(8)}\n` +
      `${results.map(row).join('\n')}\n\n` +
      `B under load, p50 / p99 of its parts (ms): first workflow task's wait, the task, the tool's wait\n` +
      `${results.map(parts).join('\n')}\n`,
  );
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `fair-dispatch-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ settings, machine, load: { atStart: loadAtStart, atEnd: loadAverages() }, results }, null, 2));
  progress(`results in ${file}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
