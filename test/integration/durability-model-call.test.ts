import { writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { RunEvent } from '../../contracts';
import type { PriceTable } from '../../contracts/pricing';
import { tenantAccountMessages, tenantAccountWorkflowId } from '../../contracts/tenant-account';
import type { TenantsConfig } from '../../contracts/tenant-settings';
import { tenantAccount } from '../../client/tenant-accounts';
import { callTools, FakeOpenAIServer, say, toolCall, type FakeStep } from '../../testing/fake-model';
import { cleanUpAll, childWorkerEnv, startChildWorker, type ChildWorker } from '../support/child-worker';
import { testTempDir } from '../support/temp-dir';
import { agentClient, createTestEnv, uniqueTaskQueue } from '../support/test-env';
import { waitFor } from '../support/wait';

/**
 * A loopback proxy in front of the fake OpenAI server. Request number `stallAt` is forwarded,
 * but only the response headers and its first SSE event reach the client; the rest is held
 * until the client goes away, so a worker killed then dies in the middle of a streamed answer.
 */
class StallingProxy {
  private count = 0;
  private stalledResolve: () => void = () => {};
  private cutOffResolve: () => void = () => {};
  /** Resolves once the stalled response has sent its first event. */
  readonly stalled = new Promise<void>((r) => (this.stalledResolve = r));
  /** Resolves when the client of the stalled response disconnects. */
  readonly cutOff = new Promise<void>((r) => (this.cutOffResolve = r));
  private readonly held: ServerResponse[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(
    private readonly targetPort: number,
    private readonly stallAt: number,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.forward(req, res));
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get baseURL(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const n = ++this.count;
    const upstream = request({ host: '127.0.0.1', port: this.targetPort, method: req.method, path: req.url, headers: req.headers }, (up) => {
      if (n !== this.stallAt) {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        return;
      }
      const parts: Buffer[] = [];
      up.on('data', (d: Buffer) => parts.push(d));
      up.on('end', () => {
        const body = Buffer.concat(parts).toString('utf8');
        const first = body.slice(0, body.indexOf('\n\n') + 2);
        this.held.push(res);
        res.once('close', () => this.cutOffResolve());
        res.writeHead(up.statusCode ?? 502, up.headers);
        res.write(first, () => this.stalledResolve());
      });
    });
    upstream.on('error', (err) => res.destroy(err));
    req.pipe(upstream);
  }
}

/** `promise`, or a failure naming what did not happen within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const toolResults = (events: RunEvent[]): Extract<RunEvent, { type: 'tool_result' }>[] =>
  events.filter((e): e is Extract<RunEvent, { type: 'tool_result' }> => e.type === 'tool_result');

let env: TestWorkflowEnvironment;
let fake: FakeOpenAIServer;
let proxy: StallingProxy;
const workers: ChildWorker[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  fake = await FakeOpenAIServer.start();
  // The second model request of the run (turn 1) is the one cut off.
  proxy = new StallingProxy(fake.port, 2);
  await proxy.start();
});

afterAll(() =>
  cleanUpAll(
    () => Promise.all(workers.map((w) => w.stop())),
    () => proxy?.close(),
    () => fake?.close(),
    () => env?.teardown(),
  ),
);

describe('durability of model calls', () => {
  it('a worker killed with SIGKILL mid-stream retries the model call elsewhere and re-runs no completed tool', async () => {
    const taskQueue = uniqueTaskQueue('durability-model');
    const workerEnv = { ...childWorkerEnv(env.address, env.namespace ?? 'default', taskQueue).env, OPENAI_BASE_URL: proxy.baseURL, OPENAI_API_KEY: 'test-key' };
    const agents = agentClient(env, taskQueue);
    fake.script(
      callTools(toolCall('remove_from_watchlist', { symbols: ['TSLA'] }, 'r1'), toolCall('get_quote', { symbol: 'AAPL' }, 'q1')),
      // Cut off mid-stream by the kill; its retry gets the same answer.
      callTools(toolCall('get_quote', { symbol: 'MSFT' }, 'q2')),
      callTools(toolCall('get_quote', { symbol: 'MSFT' }, 'q2')),
      say('Removed TSLA; AAPL and MSFT quoted.'),
    );
    const first = await startChildWorker(workerEnv);
    workers.push(first);

    const { workflowId } = await agents.start({
      agent: 'watchlist-llm',
      messages: [{ role: 'user', content: 'Drop TSLA, then quote AAPL and MSFT' }],
      sessionState: { watchlist: ['TSLA', 'AAPL'] },
    });

    // Kill the worker while the turn-1 model answer is half streamed; turn 0's tools are done.
    await within(proxy.stalled, 30_000, 'the turn-1 model answer to start streaming');
    const before = (await agents.events(workflowId, 0, 1000)).events;
    // Both of turn 0's calls are done (they run in parallel, so in either order).
    expect(toolResults(before).map((e) => e.toolCallId).sort()).toEqual(['q1', 'r1']);
    await first.kill9();
    await within(proxy.cutOff, 10_000, 'the killed worker to drop its model stream');
    expect(fake.chatRequests).toHaveLength(2);

    const second = await startChildWorker(workerEnv);
    workers.push(second);
    const result = await agents.result(workflowId);

    expect(result).toMatchObject({ status: 'completed', final: { text: 'Removed TSLA; AAPL and MSFT quoted.' }, sessionState: { watchlist: ['AAPL'] } });
    expect(fake.errors).toEqual([]);
    expect(fake.remaining).toBe(0);
    // The retry, on a worker with an empty transcript cache, sent the very same conversation.
    const [, cut, retry] = fake.chatRequests;
    expect(retry?.body?.messages).toEqual(cut?.body?.messages);
    // Three model calls were accounted for, not four: the cut-off attempt is not a call of its own.
    expect(result.cost.modelCalls.used).toBe(3);

    // History: every tool ran in exactly one attempt; only the cut-off model call was retried,
    // after its heartbeat timed out.
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const activities = new Map<number, { type: string; startedAttempt?: number; lastTimeout?: unknown; completed: number }>();
    for (const e of history.events ?? []) {
      const id = Number(e.eventId);
      if (e.activityTaskScheduledEventAttributes) activities.set(id, { type: e.activityTaskScheduledEventAttributes.activityType?.name ?? '', completed: 0 });
      const started = e.activityTaskStartedEventAttributes;
      const a = started && activities.get(Number(started.scheduledEventId));
      if (started && a) {
        a.startedAttempt = started.attempt ?? undefined;
        a.lastTimeout = started.lastFailure?.timeoutFailureInfo?.timeoutType;
      }
      const completed = e.activityTaskCompletedEventAttributes;
      const c = completed && activities.get(Number(completed.scheduledEventId));
      if (c) c.completed += 1;
    }
    const all = [...activities.values()];
    const tools = all.filter((a) => a.type !== 'callModel');
    const models = all.filter((a) => a.type === 'callModel');
    expect(tools.map((a) => a.type)).toEqual(['watchlist-llm/remove_from_watchlist', 'watchlist-llm/get_quote', 'watchlist-llm/get_quote']);
    expect(tools.every((a) => a.startedAttempt === 1 && a.completed === 1)).toBe(true);
    expect(models.map((a) => [a.startedAttempt, a.completed])).toEqual([
      [1, 1],
      [2, 1],
      [1, 1],
    ]);
    expect(models[1]?.lastTimeout).toBe(temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT);

    const { events } = await agents.events(workflowId, 0, 1000);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    // Turn 0's two calls ran in parallel and finish in either order; turn 1's call comes after both.
    const results = toolResults(events).map((e) => [e.toolCallId, e.status]);
    expect(results.slice(0, 2).sort()).toEqual([
      ['q1', 'ok'],
      ['r1', 'ok'],
    ]);
    expect(results.slice(2)).toEqual([['q2', 'ok']]);
    expect(events.filter((e) => e.type === 'plan').length).toBe(3);
  });

  it("a tenant's ledger stays exact when workers are killed mid model call (each call counted once, from its result) and between a join and its answer", async () => {
    const taskQueue = uniqueTaskQueue('durability-ledger');
    const tenant = `ledger-${taskQueue.slice(-8)}`;
    const tenantsFile = join(testTempDir('tenants-'), 'tenants.json');
    const tenants: TenantsConfig = { default: { quota: { costPerDay: 1_000 } } };
    writeFileSync(tenantsFile, JSON.stringify(tenants));
    // 20 prompt and 10 completion tokens a call (the fake's usage): 0.04 USD.
    const prices: PriceTable = { currency: 'USD', models: { 'gpt-4o-mini': { inputPerMillion: 1_000, outputPerMillion: 2_000 } } };
    const model = await FakeOpenAIServer.start();
    const workerEnv = {
      ...childWorkerEnv(env.address, env.namespace ?? 'default', taskQueue).env,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'test-key',
      DURABLE_AGENTS_TENANTS_FILE: tenantsFile,
      DURABLE_AGENTS_TEST_PRICES: JSON.stringify(prices),
    };
    const agents = agentClient(env, taskQueue);
    // Two quotes, then the answer. When armed, the next request is held (no byte sent) until its worker dies.
    let armed = false;
    let heldNow: () => void = () => {};
    const nextHeld = (): Promise<void> => {
      armed = true;
      return new Promise<void>((resolve) => (heldNow = resolve));
    };
    model.respondWith((req): FakeStep => {
      const quotes = (req.body?.messages ?? []).filter((m) => m.role === 'tool').length;
      const answer = quotes < 2 ? callTools(toolCall('get_quote', { symbol: 'AAPL' })) : say('quoted twice');
      if (!armed) return answer;
      armed = false;
      return { kind: 'held', answer, release: new Promise(() => {}), onHeld: () => heldNow() };
    });
    try {
      let worker = await startChildWorker(workerEnv);
      workers.push(worker);
      let held = nextHeld();
      const runs = await Promise.all(
        [1, 2, 3].map(() => agents.start({ agent: 'watchlist-llm-quick', messages: [{ role: 'user', content: 'Quote AAPL twice' }], sessionState: { watchlist: [] }, tenant })),
      );
      for (let kill = 0; kill < 3; kill++) {
        await within(held, 30_000, `model call ${kill + 1} to be in flight`);
        await worker.kill9();
        held = nextHeld();
        worker = await startChildWorker(workerEnv);
        workers.push(worker);
      }
      armed = false;

      // The account's worker dies between a run's join and its answer: with no worker alive, a join
      // of the next run reaches the account (as the join activity signals it) and waits there; the
      // run's own join follows when a worker is back (a join said twice). It is admitted once.
      await worker.kill9();
      const late = await agents.start({ agent: 'watchlist-llm-quick', messages: [{ role: 'user', content: 'Quote AAPL twice' }], sessionState: { watchlist: [] }, tenant });
      const account = env.client.workflow.getHandle(tenantAccountWorkflowId(tenant));
      await account.signal(tenantAccountMessages.join, { workflowId: late.workflowId, counts: true, configured: tenants.default?.quota ?? {} });
      worker = await startChildWorker(workerEnv);
      workers.push(worker);

      const all = [...runs, late];
      const results = await Promise.all(all.map((r) => agents.result(r.workflowId)));
      expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
      const usage = (await Promise.all(all.map(async (r) => (await agents.events(r.workflowId, 0, 1000)).events))).flat().filter((e): e is Extract<RunEvent, { type: 'model_usage' }> => e.type === 'model_usage');
      const calls = usage.reduce((n, e) => n + e.modelCalls, 0);
      expect(calls).toBe(results.reduce((n, r) => n + r.cost.modelCalls.used, 0));
      const ledger = await waitFor('the ledger has every turn', async () => {
        const view = await tenantAccount(agents, tenant);
        return view && view.counters.usageRecords >= usage.length ? view : undefined;
      });
      // Each turn's usage recorded once: the records, calls, tokens and money the runs reported, no more.
      expect(ledger.counters).toMatchObject({ usageRecords: usage.length, admitted: 4, refused: 0 });
      expect(ledger.day).toMatchObject({ modelCalls: calls, tokens: usage.reduce((n, e) => n + e.tokens, 0), currency: 'USD', costUnknownCalls: 0, tokensUnknownCalls: 0 });
      expect(ledger.day.cost).toBeCloseTo(usage.reduce((n, e) => n + (e.cost?.amount ?? 0), 0), 10);
      expect(ledger.day.cost).toBeCloseTo(0.04 * calls, 10);
      // The model server saw more requests than the ledger counts: the three held calls were made again.
      expect(model.chatRequests.length).toBeGreaterThanOrEqual(calls + 3);
      expect(model.errors).toEqual([]);
      await waitFor('every run left the account', async () => ((await tenantAccount(agents, tenant))?.openRuns === 0 ? true : undefined));
    } finally {
      await model.close();
    }
  });
});
