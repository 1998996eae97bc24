/**
 * `npm run bench:tenants [-- --records 6000 --senders 50 --accounts 50 --per-account 200 --runs 15 --rate 100,200 --parts one,many,admission]`:
 * tenant accounts at scale, on the dev server the benchmarks start and a worker in this process
 * whose plugin has a tenants file. Three measurements, figures only (never assertions):
 *
 * - one account: `senders` simulated runs send `records` usage signals to ONE account
 *   (`tenantAccountMessages.usage`, plain client signals) as fast as the server takes them, and
 *   paced at each `--rate` (records per second) when given; the
 *   account's `counters.usageRecords` is read every 250 ms: records applied per second, the
 *   backlog (accepted by the server, not yet applied) and the lag after the last one;
 *   its history gives signals per workflow task and how often it continued as new;
 * - many accounts: `accounts` tenants at once, `per-account` records each: aggregate records per
 *   second (independent workflows, each on the shard its workflow id hashes to);
 * - admission: a one-turn scripted run of a tenant with a concurrency quota (it joins the account
 *   and waits for its answer) against the same run without a tenant (no account), interleaved,
 *   `runs` of each: start → result, median and p90, and their ratio.
 *
 * The ledger is checked exact at the end of each: the account's day tokens are the sum sent.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { tenantAccountMessages, tenantAccountWorkflowId, tenantAccountWorkflowType, type AccountUsage, type TenantAccountView } from '../contracts/tenant-account';
import type { TenantsConfig } from '../contracts/tenant-settings';
import { provisionTemporalCli } from '../testing/temporal-cli';
import { allToolImplementations } from '../test/support/tools';
import { finalStep, scriptedInput } from '../test/support/scripts';
import { agentClient, buildTestBundle, createTestEnv, createTestWorker, uniqueTaskQueue } from '../test/support/test-env';
import { loadAverages, machineFacts } from './machine';
import { percentile } from './stats';

const tokensPerRecord = 7;
/** WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND. */
const forceClosed = temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND;

/** One account's figures. */
interface AccountLoad {
  readonly records: number;
  /** Client side: first send → last signal accepted by the server (ms). */
  readonly sendMs: number;
  /** First send → the account's counter at `records` (ms). */
  readonly applyMs: number;
  /** Last signal accepted → counter at `records` (ms). */
  readonly lagMs: number;
  /** Largest backlog seen by the 250 ms reads: accepted by the server, not yet applied. */
  readonly maxBacklog: number;
  readonly executions: number;
  /** Workflow tasks completed, and failed or timed out (the server force-closes one when more than 100 signals arrive while it runs). */
  readonly workflowTasks: number;
  readonly failedTasks: number;
  /** Of the failed: force-closed by the server (more than 100 events buffered while the task ran); the others are mostly a continue-as-new that new signals overtook (retried at once). */
  readonly forceClosedTasks: number;
  readonly signals: number;
  readonly exact: boolean;
  readonly failedSends: number;
}

async function viewOf(client: Client, tenant: string): Promise<TenantAccountView | undefined> {
  return client.workflow
    .getHandle(tenantAccountWorkflowId(tenant))
    .query(tenantAccountMessages.view)
    .catch(() => undefined);
}

/** Workflow tasks and signals of every execution of an account (following continue-as-new). */
async function historyFigures(client: Client, tenant: string): Promise<{ executions: number; workflowTasks: number; failedTasks: number; forceClosedTasks: number; signals: number }> {
  const workflowId = tenantAccountWorkflowId(tenant);
  const runIds: string[] = [];
  for await (const w of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runIds.push(w.runId);
  let workflowTasks = 0;
  let failedTasks = 0;
  let forceClosedTasks = 0;
  let signals = 0;
  for (const runId of runIds) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    for (const e of history.events ?? []) {
      if (e.workflowTaskCompletedEventAttributes) workflowTasks += 1;
      if (e.workflowTaskFailedEventAttributes || e.workflowTaskTimedOutEventAttributes) failedTasks += 1;
      if (e.workflowTaskFailedEventAttributes?.cause === forceClosed) forceClosedTasks += 1;
      if (e.workflowExecutionSignaledEventAttributes) signals += 1;
    }
  }
  return { executions: runIds.length, workflowTasks, failedTasks, forceClosedTasks, signals };
}

/** Starts a tenant's account as the first run's join would (signal-with-start), with no quota. */
async function startAccount(client: Client, taskQueue: string, tenant: string): Promise<void> {
  const usage: AccountUsage = { workflowId: `${tenant}-warm`, tokens: 0, modelCalls: 0 };
  await client.workflow.signalWithStart(tenantAccountWorkflowType, {
    workflowId: tenantAccountWorkflowId(tenant),
    taskQueue,
    args: [{ tenant, configured: {} }],
    signal: tenantAccountMessages.usage,
    signalArgs: [usage],
  });
}

/** Signals accepted by the server and refused, over every sender. */
interface Sent {
  accepted: number;
  failed: number;
  lastAcceptedAt: number;
  done: boolean;
}

/** `senders` simulated runs send `records` usage records to `tenant`'s account between them, each as fast as the server accepts them. */
async function sendUsage(client: Client, tenant: string, records: number, senders: number, sent: Sent, perSecond: number | undefined): Promise<void> {
  const handle = client.workflow.getHandle(tenantAccountWorkflowId(tenant));
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: senders }, async (_, s) => {
      const usage: AccountUsage = { workflowId: `${tenant}-run-${s}`, tokens: tokensPerRecord, modelCalls: 1, cost: 0.001, currency: 'USD' };
      while (next < records) {
        next += 1;
        // Paced: record n leaves no earlier than n / perSecond after the first.
        const due = perSecond ? began + (next * 1000) / perSecond : 0;
        if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
        try {
          await handle.signal(tenantAccountMessages.usage, usage);
          sent.accepted += 1;
          sent.lastAcceptedAt = performance.now();
        } catch {
          sent.failed += 1;
        }
      }
    }),
  );
}

/** The accounts' usage records applied, over all of them. */
async function appliedOf(client: Client, tenants: readonly string[]): Promise<number> {
  const views = await Promise.all(tenants.map((t) => viewOf(client, t)));
  return views.reduce((n, v) => n + (v?.counters.usageRecords ?? 0), 0);
}

/** Reads the accounts' counters every 250 ms until the sends are done and applied (or 180 s passed). */
async function watch(client: Client, tenants: readonly string[], sent: Sent, base: number): Promise<{ doneAt: number; maxBacklog: number }> {
  let maxBacklog = 0;
  const deadline = performance.now() + 180_000;
  for (;;) {
    const done = sent.done;
    const applied = (await appliedOf(client, tenants)) - base;
    // Read after the query answered (a query waits for a running workflow task): an upper bound.
    const accepted = sent.accepted;
    maxBacklog = Math.max(maxBacklog, accepted - applied);
    if ((done && applied >= accepted) || performance.now() > deadline) return { doneAt: performance.now(), maxBacklog };
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function loadAccounts(client: Client, taskQueue: string, tenants: readonly string[], perAccount: number, senders: number, perSecond?: number): Promise<AccountLoad> {
  await Promise.all(tenants.map((t) => startAccount(client, taskQueue, t)));
  // Each account's warm-up record counts too.
  while ((await appliedOf(client, tenants)) < tenants.length) await new Promise((r) => setTimeout(r, 100));
  const sent: Sent = { accepted: 0, failed: 0, lastAcceptedAt: 0, done: false };
  const started = performance.now();
  const watching = watch(client, tenants, sent, tenants.length);
  await Promise.all(tenants.map((t) => sendUsage(client, t, perAccount, Math.max(1, Math.floor(senders / tenants.length)), sent, perSecond)));
  sent.done = true;
  const watched = await watching;
  const views = await Promise.all(tenants.map((t) => viewOf(client, t)));
  const applied = views.reduce((n, v) => n + (v?.counters.usageRecords ?? 0), 0) - tenants.length;
  const exact = applied === sent.accepted && views.every((v) => v !== undefined && v.day.tokens === tokensPerRecord * (v.counters.usageRecords - 1) && v.day.modelCalls === v.counters.usageRecords - 1);
  const history = { executions: 0, workflowTasks: 0, failedTasks: 0, forceClosedTasks: 0, signals: 0 };
  for (const t of tenants.slice(0, 5)) {
    const h = await historyFigures(client, t);
    history.executions += h.executions;
    history.workflowTasks += h.workflowTasks;
    history.failedTasks += h.failedTasks;
    history.forceClosedTasks += h.forceClosedTasks;
    history.signals += h.signals;
  }
  return {
    records: perAccount * tenants.length,
    sendMs: sent.lastAcceptedAt - started,
    applyMs: watched.doneAt - started,
    lagMs: Math.max(0, watched.doneAt - sent.lastAcceptedAt),
    maxBacklog: watched.maxBacklog,
    ...history,
    exact,
    failedSends: sent.failed,
  };
}

/** Start → result of one-turn scripted runs, with a tenant (joins its account) and without, interleaved. */
async function admission(agents: ReturnType<typeof agentClient>, tenant: string, runs: number): Promise<{ withAccount: number[]; without: number[] }> {
  const withAccount: number[] = [];
  const without: number[] = [];
  const once = async (extra: { tenant?: string }): Promise<number> => {
    const started = performance.now();
    const { workflowId } = await agents.start(scriptedInput([finalStep('done')], extra));
    await agents.result(workflowId);
    return performance.now() - started;
  };
  // Warm-up: the account's first start, and V8 compiling both paths.
  for (let i = 0; i < 3; i++) {
    await once({ tenant });
    await once({});
  }
  for (let i = 0; i < runs; i++) {
    withAccount.push(await once({ tenant }));
    without.push(await once({}));
  }
  return { withAccount, without };
}

function line(label: string, load: AccountLoad): string {
  const rate = (n: number, ms: number): string => ((n / ms) * 1000).toFixed(0);
  const batched = load.workflowTasks ? (load.signals / load.workflowTasks).toFixed(1) : '-';
  return (
    `${label.padEnd(22)} records ${String(load.records).padStart(6)}  accepted/s ${rate(load.records - load.failedSends, load.sendMs).padStart(5)}  applied/s ${rate(load.records - load.failedSends, load.applyMs).padStart(5)}  ` +
    `lag ${load.lagMs.toFixed(0).padStart(5)} ms  max backlog ${String(load.maxBacklog).padStart(5)}  signals/task ${batched}  failed tasks ${load.failedTasks} (force-closed ${load.forceClosedTasks})  executions ${load.executions}  refused sends ${load.failedSends}  ledger ${load.exact ? 'exact' : 'WRONG'}`
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      records: { type: 'string', default: '6000' },
      senders: { type: 'string', default: '50' },
      accounts: { type: 'string', default: '50' },
      'per-account': { type: 'string', default: '200' },
      runs: { type: 'string', default: '15' },
      /** Records per second to one account, paced (comma-separated: one measurement each); default: as fast as the server takes them. */
      rate: { type: 'string' },
      /** Which measurements: one, many, admission. */
      parts: { type: 'string', default: 'one,many,admission' },
    },
  });
  const [records, senders, accounts, perAccount, runs] = [values.records, values.senders, values.accounts, values['per-account'], values.runs].map(Number) as [number, number, number, number, number];
  for (const [flag, n] of [['--records', records], ['--senders', senders], ['--accounts', accounts], ['--per-account', perAccount], ['--runs', runs]] as const) {
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer`);
  }
  const rates = (values.rate ?? '').split(',').filter(Boolean).map(Number);
  if (rates.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--rate: comma-separated positive integers (records per second)');
  const parts = new Set((values.parts ?? '').split(',').filter(Boolean));
  const cli = provisionTemporalCli();
  if (cli) process.env.TEMPORAL_CLI_PATH = cli.path;
  const bundlePath = join(tmpdir(), `durable-agents-tenants-${process.pid}.js`);
  writeFileSync(bundlePath, (await buildTestBundle()).code);
  process.env.DURABLE_AGENTS_TEST_BUNDLE = bundlePath;
  const env = await createTestEnv();
  const taskQueue = uniqueTaskQueue('bench-tenants');
  const id = taskQueue.slice(-8);
  const admitted = `admitted-${id}`;
  const tenants: TenantsConfig = { default: { quota: {} }, tenants: { [admitted]: { quota: { concurrentRuns: 100 } } } };
  const worker = await createTestWorker(env, taskQueue, allToolImplementations(), {}, { debugMode: false, plugin: { tenants } });
  const client = env.client as Client;
  const agents = agentClient(env, taskQueue);
  try {
    await worker.runUntil(async () => {
      const facts = machineFacts();
      console.log(`machine: ${facts.cores} × ${facts.cpuModel}, ${facts.platform}, node ${facts.nodeVersion}, SDK ${facts.temporalSdkVersion}, CLI ${facts.temporalCliVersion}, code ${facts.codeVersion}; load ${loadAverages().map((n) => n.toFixed(1)).join(' ')}`);
      if (parts.has('one')) console.log(line('one account', await loadAccounts(client, taskQueue, [`one-${id}`], records, senders)));
      for (const perSecond of rates) console.log(line(`one account, ${perSecond}/s`, await loadAccounts(client, taskQueue, [`paced-${perSecond}-${id}`], records, senders, perSecond)));
      if (parts.has('many')) {
        const many = Array.from({ length: accounts }, (_, i) => `many-${i}-${id}`);
        console.log(line(`${accounts} accounts (5 read)`, await loadAccounts(client, taskQueue, many, perAccount, Math.max(senders, accounts))));
      }
      if (!parts.has('admission')) return;
      const { withAccount, without } = await admission(agents, admitted, runs);
      const p = (xs: number[], q: number): string => percentile(xs, q).toFixed(0);
      console.log(
        `admission (${runs} each, start → result of a one-turn run): with a tenant account p50 ${p(withAccount, 0.5)} ms p90 ${p(withAccount, 0.9)} ms; ` +
          `without p50 ${p(without, 0.5)} ms p90 ${p(without, 0.9)} ms; ratio of medians ${(percentile(withAccount, 0.5) / percentile(without, 0.5)).toFixed(2)}`,
      );
    });
  } finally {
    await env.teardown();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
