/**
 * API servers scale out on Redis. Three API server processes (`npm run api`'s server/main.ts with
 * DURABLE_AGENTS_REDIS_URL) on one dev server and one real `redis-server`; one worker posts token
 * deltas and its announcements of new events to the first server only, with a publisher token
 * scoped to its task queue. 300 SSE subscribers, spread over the three, follow a model-planned
 * run of many turns; the third server is killed (SIGKILL) mid-stream and its subscribers
 * reconnect to the others with `Last-Event-ID`. Every subscriber ends with every seq of the run's
 * log once, in order, and deltas posted to the first server reached subscribers of the others.
 * A scoped publisher is refused for runs of other task queues, and the servers (with delta keys)
 * refuse deltas not signed for their model call. A server started in code with the broker's
 * defaults shares the processes' streams; one of the namespace with another key prefix warns.
 * Then Redis is killed: servers and runs go on, events reach every server's subscribers by their
 * paced reads.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { signCall } from '../../config/delta-keys';
import { LiveHub, RedisLiveBroker, startAgentServer } from '../../server';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createModelActivities, HttpDeltaPublisher } from '../../activities/model';
import type { RunInput } from '../../contracts';
import { callTools, FakeOpenAIServer, paced, say, toolCall, type FakeStep, type RecordedRequest } from '../../testing/fake-model';
import { DurableAgentsPlugin } from '../../worker/plugin';
import type { AgentSuite } from '../support/agent-suite';
import { findTestAgent, testAgents } from '../support/agents';
import { startApiServerProcess, type ApiServerProcess } from '../support/api-server-process';
import { cleanUpAll } from '../support/child-worker';
import { RawSseReader } from '../support/raw-sse-reader';
import { startTestRedis, type TestRedis } from '../support/redis-server';
import { addAapl, contextStep } from '../support/scripts';
import { agentClient, createTestEnv, inProcessWorkerOptions, uniqueTaskQueue, workflowBundleOption } from '../support/test-env';
import { allToolImplementations } from '../support/tools';
import { waitFor } from '../support/wait';
import { testTempDir } from '../support/temp-dir';

const tokens = { viewer: 'viewer-token-0123456789', operator: 'operator-token-0123456789', publisher: 'publisher-token-0123456789', other: 'other-publisher-token-0123456789' };
/** Tool turns of the run (two quotes each, streamed with a sentence), then a streamed answer. */
const turns = 24;
const answer = 'All quoted. '.repeat(12).trim();
const subscribers = 300;
/** The delta key of the worker and the servers. */
const deltaKey = { id: 'broker-deltas', key: randomBytes(32) };

let suite: AgentSuite;
let redis: TestRedis;
let fake: FakeOpenAIServer;
let servers: ApiServerProcess[] = [];
let worker: Worker;
let running: Promise<void>;

/**
 * Set when a test no longer needs the run to be mid-stream: until then the model keeps quoting, so
 * a run cannot end before the test has done what it does mid-stream, however slow the machine.
 */
let answerAllowed = false;

/** Quotes AAPL and MSFT at least `turns` times (a sentence first, the calls 60 ms apart), then answers once allowed. */
function modelStep(request: RecordedRequest): FakeStep {
  const toolMessages = (request.body?.messages ?? []).filter((m) => m.role === 'tool').length;
  if (answerAllowed && toolMessages >= 2 * turns) return say(answer);
  return paced({ ...callTools(toolCall('get_quote', { symbol: 'AAPL' }), toolCall('get_quote', { symbol: 'MSFT' })), content: 'Quoting both again.' }, 60);
}

beforeAll(async () => {
  const env = await createTestEnv();
  const taskQueue = uniqueTaskQueue('broker');
  suite = { env, taskQueue, agents: agentClient(env, taskQueue) };
  const tokensFile = join(testTempDir('live-broker-'), 'tokens.json');
  writeFileSync(
    tokensFile,
    JSON.stringify([
      { name: 'viewer', role: 'viewer', token: tokens.viewer },
      { name: 'operator', role: 'operator', token: tokens.operator },
      { name: 'worker', role: 'publisher', token: tokens.publisher, taskQueues: [taskQueue] },
      { name: 'other-worker', role: 'publisher', token: tokens.other, taskQueues: ['another-queue'] },
    ]),
  );
  [redis, fake] = await Promise.all([startTestRedis(), FakeOpenAIServer.start()]);
  fake.respondWith(modelStep);
  const serverEnv = {
    TEMPORAL_ADDRESS: env.address,
    TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    TEMPORAL_TASK_QUEUE: taskQueue,
    DURABLE_AGENTS_TOKENS: '',
    DURABLE_AGENTS_TOKENS_FILE: tokensFile,
    DURABLE_AGENTS_LOCAL_DEV: '',
    DURABLE_AGENTS_REDIS_URL: redis.url,
    DURABLE_AGENTS_DELTAS_KEYS: `${deltaKey.id}:${Buffer.from(deltaKey.key).toString('base64')}`,
  };
  servers = await Promise.all([0, 1, 2].map(() => startApiServerProcess(serverEnv)));
  // The worker a user runs beside the servers: deltas and announcements to the first one only.
  const deltas = new HttpDeltaPublisher({ url: (servers[0] as ApiServerProcess).url, token: tokens.publisher, signingKey: deltaKey });
  const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
  worker = await Worker.create({
    connection: env.nativeConnection,
    ...inProcessWorkerOptions,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundleOption(),
    plugins: [new DurableAgentsPlugin({ agents: testAgents, tools: allToolImplementations(), runtime: createModelActivities({ openai, findAgent: findTestAgent, deltas }), model: { deltas } })],
  });
  running = worker.run();
}, 60_000);

afterAll(async () => {
  await cleanUpAll(
    ...servers.map((server) => () => server.stop()),
    async () => {
      worker?.shutdown();
      await running;
    },
    () => fake?.close(),
    () => redis?.stop(),
    () => suite?.env.teardown(),
  );
});

// Caps well above the turns the test needs: the run goes on until the test lets the model answer,
// however slowly 300 readers catch up on a loaded machine (with the default 25 iterations it could
// end before the kill).
const input: RunInput = {
  agent: 'watchlist-llm',
  messages: [{ role: 'user', content: 'Quote AAPL and MSFT, many times' }],
  sessionState: { watchlist: ['AAPL'] },
  policy: { maxIterations: 400, maxToolCalls: 1_000 },
};

it('300 subscribers over 3 servers: one server killed mid-stream, its subscribers resume on the others with no gap and no duplicate; deltas posted to one server reach all', async () => {
  const [a, b, c] = servers as [ApiServerProcess, ApiServerProcess, ApiServerProcess];
  const { workflowId } = await suite.agents.start(input);
  // Round robin, as a balancer would; a reader whose server went away goes to the next one alive.
  const alive = [a.url, b.url, c.url];
  let next = 0;
  const pick = (previous: string | undefined): string => {
    const candidates = alive.filter((url) => url !== previous);
    return candidates[next++ % candidates.length] as string;
  };
  const readers = Array.from({ length: subscribers }, () => new RawSseReader(workflowId, tokens.viewer, pick));
  const onC = readers.filter((r) => r.servers[0] === c.url);
  const onB = readers.filter((r) => r.servers[0] === b.url);
  expect(onC).toHaveLength(subscribers / 3);

  // Mid-stream: C's subscribers have events and deltas of several turns, and the run goes on.
  await waitFor('the subscribers of the third server to be well into the run', async () => (onC.every((r) => r.seqs.length >= 40 && r.deltas.length > 0) ? true : undefined), 30_000);
  alive.splice(alive.indexOf(c.url), 1);
  await c.kill9();
  expect((await suite.agents.events(workflowId, 0, 1)).status).toBe('running');
  answerAllowed = true;

  await Promise.all(readers.map((r) => r.done));
  const log = (await suite.agents.events(workflowId, 0, 1000)).events.map((e) => e.seq);
  expect(log.length).toBeGreaterThan(100);
  expect(log).toEqual(Array.from({ length: log.length }, (_, i) => i + 1));
  // No gap, no duplicate: every subscriber has the whole log once, in order.
  const wrong = readers.filter((r) => r.seqs.length !== log.length || r.seqs.some((seq, i) => seq !== log[i]));
  expect(wrong.map((r) => ({ servers: r.servers.length, seqs: r.seqs.length }))).toEqual([]);
  // Every subscriber of the killed server resumed on another one.
  expect(onC.every((r) => r.servers.length >= 2 && r.servers.at(-1) !== c.url)).toBe(true);

  // Deltas were posted to A only: B's and C's subscribers got them through the broker.
  expect(onC.every((r) => r.deltas.some((d) => d.server === c.url))).toBe(true);
  for (const reader of onB) {
    const received = reader.deltas.filter((d) => d.server === b.url);
    const last = received.at(-1)?.delta;
    const answerText = received.filter((d) => d.delta.activityId === last?.activityId && d.delta.attempt === last.attempt && d.delta.kind === 'text').map((d) => d.delta);
    expect(new Set(answerText.map((d) => d.seq)).size).toBe(answerText.length);
    expect(answerText.map((d) => d.text).join('')).toBe(answer);
  }
});

it('refuses deltas of a publisher scoped to other task queues, and deltas not signed for their model call, on any server', async () => {
  answerAllowed = true;
  const { workflowId, runId } = await suite.agents.start({ ...input, messages: [{ role: 'user', content: 'Quote once more' }] });
  const call = { workflowId, runId, activityId: '1', attempt: 1 };
  const delta = { ...call, turn: 0, seq: 0, kind: 'text', text: 'x', at: Date.now() };
  const signatures = [{ ...call, keyId: deltaKey.id, signature: signCall(deltaKey.key, call) }];
  const post = (server: ApiServerProcess, token: string, body: unknown) =>
    fetch(`${server.url}/api/deltas`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  const refused = await post(servers[1] as ApiServerProcess, tokens.other, { deltas: [delta], signatures });
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('"another-queue"');
  const unsigned = await post(servers[1] as ApiServerProcess, tokens.publisher, { deltas: [delta] });
  expect(unsigned.status).toBe(403);
  expect(((await unsigned.json()) as { error: { message: string } }).error.message).toContain(`token deltas of run "${workflowId}"`);
  expect((await post(servers[1] as ApiServerProcess, tokens.publisher, { deltas: [delta], signatures })).status).toBe(204);
  await suite.agents.kill(workflowId, { reason: 'test over' }).catch(() => undefined);
});

it("a server started in code with the broker's defaults shares the streams of `npm run api`'s; one of the namespace with another key prefix says so", async () => {
  answerAllowed = true;
  const logged: string[] = [];
  const inCode = await startAgentServer({
    agents: suite.agents,
    auth: { localDev: false, tokens: [{ name: 'viewer', role: 'viewer', token: tokens.viewer }] },
    live: { broker: await RedisLiveBroker.connect({ url: redis.url, log: (line) => logged.push(line) }) },
  });
  const otherLog: string[] = [];
  let elsewhere: LiveHub | undefined;
  try {
    const { workflowId } = await suite.agents.start({ ...input, messages: [{ role: 'user', content: 'Quote for the server in code' }] });
    // The worker posts to the first process only: deltas reach this server through Redis, or not at all.
    const reader = new RawSseReader(workflowId, tokens.viewer, () => inCode.url);
    await reader.done;
    expect(reader.deltas.length).toBeGreaterThan(0);
    expect(inCode.live.stats().broker?.received).toBeGreaterThan(0);
    expect(logged.filter((line) => line.includes('key prefix'))).toEqual([]);

    elsewhere = new LiveHub(suite.agents, { broker: await RedisLiveBroker.connect({ url: redis.url, keyPrefix: 'elsewhere:', log: (line) => otherLog.push(line) }) });
    const warning = await waitFor('the server with another prefix to warn', async () => otherLog.find((line) => line.includes('key prefix')));
    expect(warning).toContain(`namespace ${JSON.stringify(suite.env.namespace ?? 'default')}`);
    expect(warning).toContain(JSON.stringify(`durable-agents:live:${suite.env.namespace ?? 'default'}:`));
    expect(warning).toContain('"elsewhere:"');
  } finally {
    await Promise.all([inCode.close(), elsewhere?.close()]);
  }
});

it("a session over two servers: a steer sent to one and its retry raced through the other reach the active run once; a follower on the other sees the run take it and end", async () => {
  const [a, b] = servers as [ApiServerProcess, ApiServerProcess];
  const post = async (server: ApiServerProcess, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${tokens.operator}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const sessionId = `broker-session-${Date.now()}`;
  // Opened with its first message on one server (update-with-start); the run waits for an approval.
  const opened = await post(a, '/api/sessions', { sessionId, agent: 'watchlist-scripted', sessionState: { watchlist: [] }, message: { content: 'Track AAPL', plannerOptions: { steps: [addAapl, contextStep] } } });
  expect(opened.status).toBe(201);
  const { workflowId } = opened.json.run as { workflowId: string };
  const follower = new RawSseReader(workflowId, tokens.viewer, () => b.url);
  const approval = await waitFor('the approval request', async () => (await suite.agents.pendingInputs(workflowId).catch(() => undefined))?.approvals[0]);

  const steer = { content: 'Actually, MSFT too', whenBusy: 'steer', messageId: 'broker-steer-1' };
  const answers = await Promise.all([a, b].map((server) => post(server, `/api/sessions/${encodeURIComponent(sessionId)}/messages`, steer)));
  for (const answer of answers) {
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ runNumber: 1, workflowId, messageId: 'broker-steer-1' });
  }
  expect((await post(b, `/api/runs/${encodeURIComponent(workflowId)}/decisions`, { toolCallId: approval.toolCallId, decision: 'approve', by: 'ops' })).status).toBe(200);

  await follower.done;
  const log = (await suite.agents.events(workflowId, 0, 1000)).events;
  expect(follower.seqs).toEqual(log.map((e) => e.seq));
  expect(log.filter((e) => e.type === 'intervention_applied' && e.kind === 'inject_message')).toHaveLength(1);
  const result = await suite.agents.result(workflowId);
  expect(result).toMatchObject({ status: 'completed', steered: ['broker-steer-1'] });
  // The session's events, read on the first server: taken once, and once repeated.
  const events = (await (await fetch(`${a.url}/api/sessions/${encodeURIComponent(sessionId)}/events`, { headers: { authorization: `Bearer ${tokens.viewer}` } })).json()) as { events: { type: string; messageId?: string }[] };
  const about = events.events.filter((e) => e.messageId === 'broker-steer-1').map((e) => e.type);
  expect(about.filter((t) => t === 'message_taken')).toHaveLength(1);
  expect(about.filter((t) => t === 'message_repeated')).toHaveLength(1);
  expect(about).toContain('steer_delivered');
  await suite.agents.closeSession(sessionId);
});

it('keeps serving when Redis goes away: runs complete, every server streams their events, the server the worker posts to its deltas', async () => {
  answerAllowed = true;
  const [a, b] = servers as [ApiServerProcess, ApiServerProcess];
  await redis.kill();
  const { workflowId } = await suite.agents.start({ ...input, messages: [{ role: 'user', content: 'Quote again, broker or not' }] });
  const readers = [a.url, b.url].map((url) => new RawSseReader(workflowId, tokens.viewer, () => url));
  await Promise.all(readers.map((r) => r.done));
  const log = (await suite.agents.events(workflowId, 0, 1000)).events.map((e) => e.seq);
  expect(log.at(-1)).toBeGreaterThan(10);
  for (const reader of readers) expect(reader.seqs).toEqual(log);
  expect((readers[0] as RawSseReader).deltas.length).toBeGreaterThan(0);
  expect((await fetch(`${b.url}/api/health`)).status).toBe(200);
});
