import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createModelActivities } from '../../activities/model';
import type { AgentClient } from '../../client/agent-client';
import type { RunEvent, RunInput, RunStatusReport } from '../../contracts';
import { badRequest, callTools, FakeOpenAIServer, rateLimited, say, toolCall, type FakeStep } from '../../testing/fake-model';
import { findTestAgent } from '../support/agents';
import { allToolImplementations } from '../support/tools';
import { agentClient, createTestEnv, createTestWorker, uniqueTaskQueue } from '../support/test-env';

/**
 * The model endpoint as the worker sees it: a loopback HTTP proxy in front of the fake OpenAI
 * server that can be taken down (its port refuses connections, open ones are dropped) and brought
 * back on the same port, like a provider outage. With `downAfter`, it goes down by itself once
 * that many responses have been sent.
 */
class Endpoint {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private served = 0;
  port = 0;
  /** When it last went down (ms since the epoch). */
  downAt = 0;
  downAfter: number | undefined;

  constructor(private readonly targetPort: number) {}

  get baseURL(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  get isUp(): boolean {
    return this.server !== undefined;
  }

  async up(): Promise<void> {
    const server = createServer((req, res) => this.forward(req, res));
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.downAt = Date.now();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const upstream = request({ host: '127.0.0.1', port: this.targetPort, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    res.on('finish', () => {
      this.served += 1;
      if (this.downAfter !== undefined && this.served >= this.downAfter) {
        this.downAfter = undefined;
        // After the response is out: the next request finds the port closed.
        setImmediate(() => void this.down());
      }
    });
    upstream.on('error', (err) => res.destroy(err));
    req.pipe(upstream);
  }
}

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let agents: AgentClient;
let fake: FakeOpenAIServer;
let endpoint: Endpoint;

beforeAll(async () => {
  env = await createTestEnv();
  fake = await FakeOpenAIServer.start();
  endpoint = new Endpoint(fake.port);
  await endpoint.up();
  const openai = new OpenAI({ baseURL: endpoint.baseURL, apiKey: 'test-key', maxRetries: 0 });
  const taskQueue = uniqueTaskQueue('provider-outage');
  worker = await createTestWorker(env, taskQueue, allToolImplementations(), createModelActivities({ openai, findAgent: findTestAgent }));
  running = worker.run();
  agents = agentClient(env, taskQueue);
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await endpoint?.down();
  await fake?.close();
  await env?.teardown();
});

afterEach(async () => {
  // The fake fails loudly: an unexpected request or a script step left over fails the test (and
  // only that test: the next one starts clean, with the endpoint up).
  const [errors, remaining] = [[...fake.errors], fake.remaining];
  fake.reset();
  if (!endpoint.isUp) await endpoint.up();
  expect(errors).toEqual([]);
  expect(remaining).toBe(0);
});

function llmInput(content: string, extra: Partial<RunInput> = {}): RunInput {
  return { agent: 'watchlist-llm', messages: [{ role: 'user', content }], sessionState: { watchlist: ['TSLA', 'AAPL'] }, ...extra };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls the status query until `done` holds (or fails after `ms`). */
async function statusUntil(workflowId: string, done: (s: RunStatusReport) => boolean, ms = 60_000): Promise<RunStatusReport> {
  const deadline = Date.now() + ms;
  for (;;) {
    const status = await agents.status(workflowId);
    if (done(status)) return status;
    if (['completed', 'failed', 'terminated'].includes(status.status)) {
      throw new Error(`the run ended (${status.status}) first: ${JSON.stringify((await events(workflowId)).slice(-2))}`);
    }
    if (Date.now() > deadline) throw new Error(`status never matched; last: ${JSON.stringify(status)}`);
    await sleep(250);
  }
}

async function runFailure(workflowId: string): Promise<ApplicationFailure> {
  const err = await agents.result(workflowId).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

async function events(workflowId: string): Promise<RunEvent[]> {
  return (await agents.events(workflowId, 0, 1000)).events;
}

async function historyLength(workflowId: string): Promise<number> {
  return (await env.client.workflow.getHandle(workflowId).fetchHistory()).events?.length ?? 0;
}

/** The model activities a run scheduled (by id), and how many of them failed, from its history. */
async function modelActivities(workflowId: string): Promise<{ ids: string[]; failed: number }> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel');
  const byEventId = new Set(scheduled.map((e) => String(e.eventId)));
  const failed = (history.events ?? []).filter((e) => e.activityTaskFailedEventAttributes && byEventId.has(String(e.activityTaskFailedEventAttributes.scheduledEventId))).length;
  return { ids: scheduled.map((e) => e.activityTaskScheduledEventAttributes?.activityId ?? ''), failed };
}

const unauthorized: FakeStep = { kind: 'error', status: 401, message: 'Incorrect API key provided (fake)', type: 'invalid_request_error', code: 'invalid_api_key' };

describe('provider outages', () => {
  it('waits out a 25 s outage of the model endpoint mid-run, showing the wait in its status and log, and completes', async () => {
    fake.script(callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'q1')), say('AAPL is quoted.'));
    // The endpoint goes down right after the first answer: the turn-1 model call finds it down.
    endpoint.downAfter = 1;
    const { workflowId } = await agents.start(llmInput('Quote AAPL'));

    const waiting = await statusUntil(workflowId, (s) => s.waitingFor !== undefined);
    expect(endpoint.isUp).toBe(false);
    expect(waiting.status).toBe('running');
    expect(waiting.waitingFor).toMatchObject({ kind: 'model', name: 'gpt-4o-mini', turn: 1, attempts: 5, errorType: 'model_unavailable', error: expect.stringContaining('could not reach the model endpoint') });

    await sleep(Math.max(0, endpoint.downAt + 25_000 - Date.now()));
    await endpoint.up();
    const result = await agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', final: { text: 'AAPL is quoted.' } });

    const log = await events(workflowId);
    expect(log.filter((e) => e.type === 'model_waiting')).toEqual([
      expect.objectContaining({ turn: 1, model: 'gpt-4o-mini', attempts: 5, errorType: 'model_unavailable' }),
    ]);
    expect(log.some((e) => e.type === 'note' && e.note.labels?.kind === 'model_available')).toBe(true);
    expect(log.some((e) => e.type === 'run_failed')).toBe(false);
    expect((await agents.status(workflowId)).waitingFor).toBeUndefined();
    // The outage cost one failed model activity; its retries were the server's, not the run's history's.
    expect(await modelActivities(workflowId)).toEqual({ ids: ['turn-0/model-1', 'turn-1/model-2', 'turn-1/model-2/wait-1'], failed: 1 });
    expect(fake.chatRequests).toHaveLength(2);

    // The same run without an outage, for the history events the outage added.
    fake.script(callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'q1')), say('AAPL is quoted.'));
    const plain = await agents.start(llmInput('Quote AAPL'));
    await agents.result(plain.workflowId);
    // The failed first activity (scheduled, started, failed) and the workflow task that reacts to
    // it: 6, however long the outage lasts (the wait's patch is in the run's 1.0.0 baseline
    // marker, which every run records at its start).
    expect((await historyLength(workflowId)) - (await historyLength(plain.workflowId))).toBe(6);
  });

  it('waits out rate limits past the first attempts, honouring the provider retry-after', async () => {
    fake.script(...Array.from({ length: 6 }, () => rateLimited(1)), say('Fine after waiting.'));
    const { workflowId } = await agents.start(llmInput('Hello'));
    const result = await agents.result(workflowId);
    expect(result.final?.text).toBe('Fine after waiting.');
    expect((await events(workflowId)).filter((e) => e.type === 'model_waiting')).toEqual([expect.objectContaining({ attempts: 5, errorType: 'model_rate_limited' })]);
    expect(fake.chatRequests).toHaveLength(7);
  });

  it('gives up waiting when the run time budget is spent, failing with model_unavailable', async () => {
    await endpoint.down();
    const { workflowId } = await agents.start(llmInput('Hello', { policy: { timeBudgetMs: 25_000 } }));
    const failure = await runFailure(workflowId);
    expect(failure.type).toBe('model_unavailable');
    expect(failure.message).toMatch(/unavailable until the run's time budget was spent/);
    const log = await events(workflowId);
    expect(log.filter((e) => e.type === 'model_waiting')).toHaveLength(1);
    expect(log.filter((e) => e.type === 'run_failed')).toEqual([expect.objectContaining({ errorType: 'model_unavailable' })]);
    expect((await agents.status(workflowId)).waitingFor).toBeUndefined();
  });

  it('a kill while the run waits for its provider ends the run at once', async () => {
    await endpoint.down();
    const { workflowId } = await agents.start(llmInput('Hello'));
    await statusUntil(workflowId, (s) => s.waitingFor !== undefined);
    const killed = await agents.kill(workflowId, { reason: 'provider down' });
    expect(killed.status).toBe('terminated');
    expect(killed.waitingFor).toBeUndefined();
    expect(await agents.result(workflowId)).toMatchObject({ status: 'terminated' });
    // The waiting activity was cancelled, not left retrying.
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    expect(history.events?.some((e) => e.activityTaskCancelRequestedEventAttributes)).toBe(true);
  });

  it('still fails at once on a refused request (400) and refused credentials (401)', async () => {
    fake.script(badRequest());
    const bad = await agents.start(llmInput('Hello'));
    expect((await runFailure(bad.workflowId)).type).toBe('model_bad_request');
    fake.script(unauthorized);
    const auth = await agents.start(llmInput('Hello'));
    expect((await runFailure(auth.workflowId)).type).toBe('model_auth');
    expect(fake.chatRequests).toHaveLength(2);
    for (const id of [bad.workflowId, auth.workflowId]) {
      expect((await events(id)).some((e) => e.type === 'model_waiting')).toBe(false);
      expect((await modelActivities(id)).ids).toHaveLength(1);
    }
  });
});
