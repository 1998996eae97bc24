/**
 * `npm run bench:fair [-- --a-runs 500 --b-runs 30 --tool-ms 300 --activity-slots 5 --workflow-slots 4 --fairness-args 'matching.enableFairness=true' --no-eager --a-quota 4,10 --cases off,off-quota,on-nokeys,on,on-tier2,on-quota,on-quota-tier2]`
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
 * - `fairness on, B tier 2`: the same, B's tenant at priority tier 2 (`dispatch: { priority: 2 }`), A's at the default 3;
 * - `fairness on, A quota N` (one case per N of `--a-quota`): the same, and the worker has a tenants
 *   file that gives A `quota: { concurrentRuns: N, whenOver: 'wait' }`: A's runs beyond N wait in
 *   A's account (status `waitingFor: quota`) before their first turn; B has an account without a quota;
 * - `fairness on, A quota N, B tier 2`: both: A under its quota, B's tenant at priority tier 2;
 * - `fairness off, A quota N`: the quota on the default server.
 *
 * Each case's tenants are named for the case (`tenant-a-<case>`), so each has accounts of its own
 * on the case's task queue. Idle B runs are measured per case, with the case's worker and tenants file.
 * B's parts under load: the first workflow task's wait and the task, the wait for the account's
 * answer (0 without an account), from there to the tool's scheduling, and the tool's wait; B's
 * runs started 15 s or more into A's burst apart (past A's start burst, while A's backlog lasts);
 * and B's slowest run placed in A's burst.
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
import { accountSignals } from '../contracts/tenant-account';
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
  /** The concurrency quotas of A in the quota cases, one case per value. */
  readonly aQuotas: readonly number[];
  /** Which cases run (ids: off, off-quota, on-nokeys, on, on-tier2, on-quota, on-quota-tier2). */
  readonly cases: ReadonlySet<string>;
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
  /** A's first workflow task, p50 / p99 (ms): its wait in the queue, and the task (with a tenants file, it joins A's account). */
  readonly aFirstTask: { readonly wait: readonly [number, number]; readonly task: readonly [number, number] };
  /** B's runs started 15 s or more after A's first start (A's start burst behind them, A's backlog not): p50 and max, ms. */
  readonly settled: readonly [number, number];
  /** B's slowest run under load: where it started in A's burst and which of A's first workflow tasks went while its own waited. */
  readonly slowestB: SlowestB;
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
      'a-quota': { type: 'string', default: '10' },
      cases: { type: 'string', default: caseIds.join(',') },
    },
    strict: true,
  });
  const int = (flag: string, raw: string | undefined, fallback: number): number => {
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} must be a positive integer (got ${raw})`);
    return n;
  };
  const bRuns = int('b-runs', values['b-runs'], values.smoke ? 3 : 30);
  const cases = new Set((values.cases ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  for (const c of cases) if (!caseIds.includes(c)) throw new Error(`--cases: unknown case ${c} (one of ${caseIds.join(', ')})`);
  return {
    aRuns: int('a-runs', values['a-runs'], values.smoke ? 40 : 500),
    bRuns,
    bIdleRuns: Math.min(bRuns, 10),
    toolMs: int('tool-ms', values['tool-ms'], 300),
    activitySlots: int('activity-slots', values['activity-slots'], 5),
    workflowSlots: int('workflow-slots', values['workflow-slots'], 4),
    noEager: values['no-eager'] ?? false,
    aQuotas: (values['a-quota'] ?? '').split(',').map((raw) => int('a-quota', raw.trim(), 10)),
    cases,
    fairnessArgs: (values['fairness-args'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .flatMap((kv) => ['--dynamic-config-value', kv]),
  };
}

const caseIds = ['off', 'off-quota', 'on-nokeys', 'on', 'on-tier2', 'on-quota', 'on-quota-tier2'];

function ms(e: HistoryEvent | undefined): number {
  if (!e?.eventTime) throw new Error('event without time');
  return Number(e.eventTime.seconds) * 1000 + Math.floor((e.eventTime.nanos ?? 0) / 1e6);
}

/**
 * From the run's start to its first tool activity's start, on the server's clock, and its parts:
 * the first workflow task's wait in the queue (scheduled → started), the task itself (started →
 * completed), the wait for the tenant account's last answer before the tool (from the first task's
 * end; 0 without an account), from there (or the first task's end) to the tool's scheduling (the
 * workflow task the answer wakes: its wait and its work), and the tool's wait in the queue
 * (scheduled → started).
 */
interface FirstTool {
  readonly total: number;
  readonly workflowTaskWait: number;
  readonly workflowTask: number;
  readonly admission: number;
  readonly toScheduled: number;
  readonly activityWait: number;
  /** Server clock (ms since the epoch): the run's start, its first workflow task's scheduling and start. */
  readonly at: { readonly start: number; readonly taskScheduled: number; readonly taskStarted: number };
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
  const answers = events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === accountSignals.answer && Number(e.eventId) < Number(scheduled?.eventId));
  const answered = answers.length > 0 ? ms(answers[answers.length - 1]) : ms(taskCompleted);
  return {
    total: ms(firstTool) - ms(events[0]),
    workflowTaskWait: ms(taskStarted) - ms(taskScheduled),
    workflowTask: ms(taskCompleted) - ms(taskStarted),
    admission: answered - ms(taskCompleted),
    toScheduled: ms(scheduled) - answered,
    activityWait: ms(firstTool) - ms(scheduled),
    at: { start: ms(events[0]), taskScheduled: ms(taskScheduled), taskStarted: ms(taskStarted) },
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
async function tenantB(env: TestWorkflowEnvironment, agents: AgentClient, runs: number, settings: Settings, tenant: string | undefined): Promise<FirstTool[]> {
  const ids: Promise<string>[] = [];
  for (let i = 0; i < runs; i++) {
    const at = performance.now();
    ids.push(agents.start(input(tenant, settings.toolMs, `b${i}`)).then(async ({ workflowId }) => (await agents.result(workflowId), workflowId)));
    await delay(Math.max(0, 1000 - (performance.now() - at)));
  }
  const done = await Promise.all(ids);
  return Promise.all(done.map((id) => timeToFirstTool(env, id)));
}

/** A's burst: every run started at once (50 starts in flight), then awaited to its end. */
async function tenantA(env: TestWorkflowEnvironment, agents: AgentClient, settings: Settings, tenant: string | undefined): Promise<{ firstTool: FirstTool[]; drainMs: number }> {
  const at = performance.now();
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < settings.aRuns) {
        const i = next++;
        ids.push((await agents.start(input(tenant, settings.toolMs, `a${i}`))).workflowId);
      }
    }),
  );
  progress(`  A: ${ids.length} runs started in ${((performance.now() - at) / 1000).toFixed(1)} s`);
  await Promise.all(ids.map((id) => agents.result(id)));
  const drainMs = performance.now() - at;
  const firstTool: FirstTool[] = [];
  for (const id of ids) firstTool.push(await timeToFirstTool(env, id));
  return { firstTool, drainMs };
}

/** A case on one server: whether runs carry their tenant, and the tenants file of the client (dispatch) and, with `onWorker`, of the worker (quotas). */
interface Case {
  readonly name: string;
  readonly keys: boolean;
  readonly tenants?: (a: string, b: string) => TenantsConfig;
  readonly onWorker?: boolean;
}

/** A's concurrency quota: A's runs beyond `n` wait in A's account; B's account has no quota. */
function quotaCase(server: string, n: number, bTier?: number): Case {
  return {
    name: `${server}, A quota ${n}${bTier ? `, B tier ${bTier}` : ''}`,
    keys: true,
    onWorker: true,
    tenants: (a, b) => ({ tenants: { [a]: { quota: { concurrentRuns: n, whenOver: 'wait' } }, ...(bTier ? { [b]: { dispatch: { priority: bTier } } } : {}) } }),
  };
}

async function runCase(env: TestWorkflowEnvironment, workflowBundle: Awaited<ReturnType<typeof bundleAgentWorkflows>>, settings: Settings, c: Case, serverArgs: readonly string[]): Promise<CaseResult> {
  const { name, keys } = c;
  const stamp = Date.now().toString(36);
  const taskQueue = `bench-fair-${name.replace(/[^a-z0-9]+/g, '-')}-${stamp}`;
  // Tenants of the case's own: an account is one workflow per tenant, started on the task queue of its first run.
  const [a, b] = [`tenant-a-${stamp}`, `tenant-b-${stamp}`];
  const tenants = c.tenants?.(a, b);
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
    ...(tenants && c.onWorker ? { tenants } : {}),
  });
  return worker.runUntil(async () => {
    const agents = new AgentClient(env.client, taskQueue, true, tenants ? { tenants } : {});
    progress(`${name}: B alone, ${settings.bIdleRuns} runs a second apart`);
    const idle = (await tenantB(env, agents, settings.bIdleRuns, settings, keys ? b : undefined)).map((t) => t.total);
    progress(`${name}: A starts ${settings.aRuns} runs at once, B one a second (${settings.bRuns})`);
    const [burst, loaded] = await Promise.all([tenantA(env, agents, settings, keys ? a : undefined), tenantB(env, agents, settings.bRuns, settings, keys ? b : undefined)]);
    return { name, serverArgs, keys, idle, loaded: loaded.map((t) => t.total), loadedParts: loaded, aFirstTool: burst.firstTool.map((t) => t.total), aDrainMs: burst.drainMs, aFirstTask: firstTaskOf(burst.firstTool), settled: settledOf(loaded, burst.firstTool), slowestB: slowest(loaded, burst.firstTool) };
  });
}

/** The slowest B run under load, placed in A's burst (all times from histories, the server's clock). */
interface SlowestB {
  readonly total: number;
  /** Its start, ms after A's first run started; A's last start, ms after the same. */
  readonly startedAfterA: number;
  readonly aStartsSpan: number;
  readonly workflowTaskWait: number;
  /** A's first workflow tasks that started while B's first task waited in the queue: created before B's, and after it. */
  readonly aTasksAheadCreatedBefore: number;
  readonly aTasksAheadCreatedAfter: number;
}

function slowest(loaded: readonly FirstTool[], a: readonly FirstTool[]): SlowestB {
  const b = loaded.reduce((worst, t) => (t.total > worst.total ? t : worst));
  const aStart = Math.min(...a.map((t) => t.at.start));
  const ahead = a.filter((t) => t.at.taskStarted >= b.at.taskScheduled && t.at.taskStarted <= b.at.taskStarted);
  return {
    total: b.total,
    startedAfterA: b.at.start - aStart,
    aStartsSpan: Math.max(...a.map((t) => t.at.start)) - aStart,
    workflowTaskWait: b.workflowTaskWait,
    aTasksAheadCreatedBefore: ahead.filter((t) => t.at.taskScheduled <= b.at.taskScheduled).length,
    aTasksAheadCreatedAfter: ahead.filter((t) => t.at.taskScheduled > b.at.taskScheduled).length,
  };
}

/** How long after A's first start B counts as past A's start burst. */
const settledAfterMs = 15_000;

function settledOf(loaded: readonly FirstTool[], a: readonly FirstTool[]): CaseResult['settled'] {
  const aStart = Math.min(...a.map((t) => t.at.start));
  const late = loaded.filter((t) => t.at.start - aStart >= settledAfterMs).map((t) => t.total);
  return late.length > 0 ? [percentile(late, 0.5), Math.max(...late)] : [Number.NaN, Number.NaN];
}

function firstTaskOf(a: readonly FirstTool[]): CaseResult['aFirstTask'] {
  const p = (xs: number[]): [number, number] => [percentile(xs, 0.5), percentile(xs, 0.99)];
  return { wait: p(a.map((t) => t.workflowTaskWait)), task: p(a.map((t) => t.workflowTask)) };
}

function slowestLine(r: CaseResult): string {
  const s = r.slowestB;
  const f = r.aFirstTask;
  return `${r.name.padEnd(26)} A's first tasks waited ${f.wait[0].toFixed(0)} / ${f.wait[1].toFixed(0)} ms and took ${f.task[0].toFixed(0)} / ${f.task[1].toFixed(0)} ms (p50 / p99); B's slowest ${String(s.total).padStart(6)} ms: started ${s.startedAfterA} ms into A's burst (A's starts span ${s.aStartsSpan} ms); its first task waited ${s.workflowTaskWait} ms, while ${s.aTasksAheadCreatedBefore} of A's first tasks created before it and ${s.aTasksAheadCreatedAfter} created after it started`;
}

function row(r: CaseResult): string {
  const p = (xs: number[], q: number) => percentile(xs, q).toFixed(0).padStart(7);
  const idle99 = percentile(r.idle, 0.99);
  return `${r.name.padEnd(26)} ${p(r.idle, 0.5)} ${p(r.idle, 0.99)} ${p(r.loaded, 0.5)} ${p(r.loaded, 0.99)} ${(percentile(r.loaded, 0.99) / idle99).toFixed(1).padStart(8)}× ${p(r.aFirstTool, 0.5)} ${(r.aDrainMs / 1000).toFixed(1).padStart(8)} ${r.settled[0].toFixed(0).padStart(7)} ${r.settled[1].toFixed(0).padStart(7)}`;
}

function parts(r: CaseResult): string {
  const pp = (pick: (t: FirstTool) => number) => {
    const xs = r.loadedParts.map(pick);
    return `${percentile(xs, 0.5).toFixed(0).padStart(6)} / ${percentile(xs, 0.99).toFixed(0).padStart(6)}`;
  };
  return `${r.name.padEnd(26)} ${pp((t) => t.workflowTaskWait)}   ${pp((t) => t.workflowTask)}   ${pp((t) => t.admission)}   ${pp((t) => t.toScheduled)}   ${pp((t) => t.activityWait)}`;
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
  const pick = (id: string, ...cases: Case[]): Case[] => (settings.cases.has(id) ? cases : []);
  for (const server of [
    { args: [] as readonly string[], cases: [...pick('off', { name: 'fairness off', keys: true }), ...pick('off-quota', ...settings.aQuotas.map((n) => quotaCase('fairness off', n)))] },
    {
      args: settings.fairnessArgs,
      cases: [
        ...pick('on-nokeys', { name: 'fairness on, no keys', keys: false }),
        ...pick('on', { name: 'fairness on', keys: true }),
        ...pick('on-tier2', { name: 'fairness on, B tier 2', keys: true, tenants: (_a: string, b: string): TenantsConfig => ({ tenants: { [b]: { dispatch: { priority: 2 } } } }) }),
        ...pick('on-quota', ...settings.aQuotas.map((n) => quotaCase('fairness on', n))),
        ...pick('on-quota-tier2', ...settings.aQuotas.map((n) => quotaCase('fairness on', n, 2))),
      ],
    },
  ].filter((s) => s.cases.length > 0)) {
    progress(`starting a dev server ${server.args.length ? `with ${server.args.filter((a) => a !== '--dynamic-config-value').join(' ')}` : 'with its defaults'}`);
    const env = await createOwnTestEnv(server.args);
    try {
      for (const c of server.cases) results.push(await runCase(env, workflowBundle, settings, c, server.args));
    } finally {
      await env.teardown();
    }
  }
  const version = cli ? `${cli.path}` : 'the SDK-provided CLI';
  process.stdout.write(
    `\nB's time to first tool call (ms, start → first ActivityTaskStarted, server clock); A: ${settings.aRuns} runs at once, B: one a second (${settings.bRuns}; ${settings.bIdleRuns} alone),\n` +
      `tool ${settings.toolMs} ms, worker ${settings.activitySlots} activity / ${settings.workflowSlots} workflow task slots${settings.noEager ? ', eager activities off' : ''}; fairness on = ${settings.fairnessArgs.filter((a) => a !== '--dynamic-config-value').join(' ')}; CLI ${version}\n\n` +
      `${'case'.padEnd(26)} ${'idle p50'.padStart(7)} ${'idle p99'.padStart(7)} ${'B p50'.padStart(7)} ${'B p99'.padStart(7)} ${'p99/idle'.padStart(9)} ${'A p50'.padStart(7)} ${'A drain s'.padStart(8)} ${'B≥15s p50'.padStart(7)} ${'max'.padStart(7)}\n` +
      `${results.map(row).join('\n')}\n\n` +
      `B under load, p50 / p99 of its parts (ms): first workflow task's wait, the task, the account's answer, to the tool's scheduling, the tool's wait\n` +
      `${results.map(parts).join('\n')}\n\n` +
      `A's first workflow tasks, and B's slowest run under load\n` +
      `${results.map(slowestLine).join('\n')}\n`,
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
