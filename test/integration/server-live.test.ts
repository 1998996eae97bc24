import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import OpenAI from 'openai';
import WebSocket from 'ws';
import { createModelActivities, HttpDeltaPublisher } from '../../activities/model';
import { AgentClient } from '../../client/agent-client';
import type { RunEvent, RunInput } from '../../contracts';
import type { TokenDelta } from '../../contracts/deltas';
import type { SessionEvent } from '../../contracts/session';
import { waitFor } from '../support/wait';
import { startAgentServer, type AgentServer } from '../../server';
import { callTools, FakeOpenAIServer, say, toolCall } from '../../testing/fake-model';
import { findTestAgent } from '../support/agents';
import { callStep, finalStep, scriptedInput, watchlistRun, addAapl } from '../support/scripts';
import { SseClient } from '../support/sse-client';
import { agentClient, createTestEnv, createTestWorker, uniqueTaskQueue } from '../support/test-env';
import { allToolImplementations } from '../support/tools';
import { getEventListeners, setMaxListeners } from 'node:events';
import { createHmac, randomBytes } from 'node:crypto';
import { callUntil } from '../../server/live/call-until';

const tokens = {
  viewer: 'viewer-token-0123456789',
  operator: 'operator-token-0123456789',
  admin: 'admin-token-0123456789ab',
  publisher: 'publisher-token-0123456789',
};
type Role = keyof typeof tokens;

let env: TestWorkflowEnvironment;
let fake: FakeOpenAIServer;
let server: AgentServer;
let agents: AgentClient;
/** A client of a second worker whose model activity publishes no deltas. */
let plain: AgentClient;
let workers: Worker[] = [];
let running: Promise<unknown>;
let publisher: HttpDeltaPublisher;
/** The key workers sign their token deltas with, and the server checks them with. */
const deltaKey = { id: 'deltas-2026-11', key: randomBytes(32) };
/** Events queries the server's client sent, by workflow id. */
const serverQueries = new Map<string, number>();

beforeAll(async () => {
  env = await createTestEnv();
  fake = await FakeOpenAIServer.start();
  const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
  const taskQueue = uniqueTaskQueue('live');
  const plainQueue = uniqueTaskQueue('flat');
  agents = agentClient(env, taskQueue);
  plain = agentClient(env, plainQueue);
  // The server's own client counts the events queries it sends (what a watched run costs Temporal).
  const counted = new Client({
    connection: env.client.connection,
    namespace: env.namespace ?? 'default',
    interceptors: {
      workflow: [
        {
          query: (input, next) => {
            if (input.queryType === 'events') serverQueries.set(input.workflowExecution.workflowId, (serverQueries.get(input.workflowExecution.workflowId) ?? 0) + 1);
            return next(input);
          },
        },
      ],
    },
  });
  server = await startAgentServer({
    agents: new AgentClient(counted, taskQueue),
    auth: { localDev: false, tokens: (Object.keys(tokens) as Role[]).map((role) => ({ name: `${role}-user`, role, token: tokens[role] })) },
    live: { deltaKeys: [deltaKey] },
  });
  publisher = new HttpDeltaPublisher({ url: server.url, token: tokens.publisher, signingKey: deltaKey });
  workers = [
    await createTestWorker(env, taskQueue, allToolImplementations(), createModelActivities({ openai, findAgent: findTestAgent, deltas: publisher })),
    await createTestWorker(env, plainQueue, allToolImplementations(), createModelActivities({ openai, findAgent: findTestAgent })),
  ];
  running = Promise.all(workers.map((w) => w.run()));
});

afterAll(async () => {
  await server?.close();
  for (const w of workers) w.shutdown();
  await running;
  await fake?.close();
  await env?.teardown();
});

const bearer = (role: Role) => ({ authorization: `Bearer ${tokens[role]}` });

function events(workflowId: string, headers: Record<string, string> = {}, query = ''): SseClient {
  return new SseClient(`${server.url}/api/runs/${workflowId}/events${query}`, { ...bearer('viewer'), ...headers });
}

const runEvents = (client: SseClient): RunEvent[] => client.data<RunEvent>('run-event');
const seqs = (list: readonly RunEvent[]) => list.map((e) => e.seq);
const hasEvent = (type: RunEvent['type']) => (messages: readonly { event: string; data: string }[]) =>
  messages.some((m) => m.event === 'run-event' && (JSON.parse(m.data) as RunEvent).type === type);

async function allEvents(workflowId: string): Promise<RunEvent[]> {
  return (await agents.events(workflowId, 0, 1000)).events;
}

async function approvalOf(client: SseClient): Promise<string> {
  await client.until('approval_requested', hasEvent('approval_requested'));
  const approval = runEvents(client).find((e) => e.type === 'approval_requested');
  if (approval?.type !== 'approval_requested') throw new Error('no approval');
  return approval.toolCallId;
}

describe('SSE events stream', () => {
  it('follows a run to completion with the same events as the events query, then ends', async () => {
    const { workflowId } = await agents.start(scriptedInput([callStep({ name: 'add', args: { a: 1, b: 2 } }), callStep({ name: 'add', args: { a: 3, b: 4 } }), finalStep()]));
    const client = events(workflowId);
    await client.done;
    expect(client.headers?.get('content-type')).toContain('text/event-stream');
    const seen = runEvents(client);
    expect(seen).toEqual(await allEvents(workflowId));
    expect(client.messages.filter((m) => m.event === 'run-event').map((m) => m.id)).toEqual(seen.map((e) => String(e.seq)));
    expect(client.data('end')).toEqual([{ status: 'completed' }]);
    expect(client.messages.at(-1)?.event).toBe('end');
  });

  it('answers a JSON EventPage without Accept: text/event-stream, and 404 for an unknown run', async () => {
    const { workflowId } = await agents.start(scriptedInput([finalStep()]));
    await agents.result(workflowId);
    const page = (await (await fetch(`${server.url}/api/runs/${workflowId}/events?after=1&limit=2`, { headers: bearer('viewer') })).json()) as { events: RunEvent[] };
    expect(seqs(page.events)).toEqual([2, 3]);
    const missing = await fetch(`${server.url}/api/runs/no-such-run/events`, { headers: { ...bearer('viewer'), accept: 'text/event-stream' } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: 'run_not_found' } });
    const anonymous = await fetch(`${server.url}/api/runs/${workflowId}/events`, { headers: { accept: 'text/event-stream' } });
    expect(anonymous.status).toBe(401);
  });

  it("streams a session's run asked for right after sendMessage, queued behind another; a run the session never had is a 404", async () => {
    const sessionId = `live-${Date.now()}`;
    await agents.openSession(sessionId, { agent: 'scripted' });
    await agents.sendMessage(sessionId, { content: 'first', plannerOptions: { steps: [callStep({ name: 'sleep', args: { ms: 1_500 } }), finalStep()] } });
    const second = await agents.sendMessage(sessionId, { content: 'second', plannerOptions: { steps: [finalStep()] } });
    expect(second.status).toBe('queued');
    const id = encodeURIComponent(second.workflowId);
    const client = events(id);
    const ui = new SseClient(`${server.url}/api/runs/${id}/ui-stream`, bearer('viewer'));
    await Promise.all([client.done, ui.done]);
    expect(runEvents(client)).toEqual(await allEvents(second.workflowId));
    expect(client.data('end')).toEqual([{ status: 'completed' }]);
    expect(ui.messages.at(-1)?.data).toBe('[DONE]');
    const never = await fetch(`${server.url}/api/runs/${encodeURIComponent(second.workflowId.replace(/run-2$/, 'run-9'))}/events`, { headers: { ...bearer('viewer'), accept: 'text/event-stream' } });
    expect(never.status).toBe(404);
    await agents.closeSession(sessionId);
  });

  it('resumes with Last-Event-ID mid-run with no gap and no duplicate; the disconnect does not stop the run', async () => {
    const { workflowId } = await agents.start(watchlistRun([addAapl, callStep({ name: 'get_quote', args: { symbol: 'AAPL' } }), finalStep()]));
    const first = events(workflowId);
    const toolCallId = await approvalOf(first);
    first.close();
    const before = runEvents(first);
    // Resume from an event before the last one seen: the overlap must not come twice.
    const resumeAfter = (before.at(-2) as RunEvent).seq;
    await agents.decide(workflowId, { decision: 'approve', toolCallId });
    const second = events(workflowId, { 'last-event-id': String(resumeAfter) });
    await second.done;
    const combined = [...before.filter((e) => e.seq <= resumeAfter), ...runEvents(second)];
    const all = await allEvents(workflowId);
    expect(seqs(combined)).toEqual(all.map((_, i) => i + 1));
    expect(combined).toEqual(all);
    expect((await agents.result(workflowId)).status).toBe('completed');
  });

  it('a rewind sends reset with fromSeq, then the new events; applying it gives the rewound log', async () => {
    const steps = [1, 2, 3, 4].map((n) => callStep({ name: 'record', args: { label: `t${n}` } }));
    const { workflowId } = await agents.start(scriptedInput([...steps, callStep({ name: 'record', args: { label: 't5', delayMs: 3_000 } }), finalStep()]));
    const client = events(workflowId);
    await client.until('the slow last turn', (messages) =>
      messages.some((m) => m.event === 'run-event' && (JSON.parse(m.data) as RunEvent).type === 'tool_call' && (JSON.parse(m.data) as { toolCallId: string }).toolCallId === 'call_4_0'),
    );
    await agents.rewind(workflowId, { toTurn: 2, reason: 'live rewind test' });
    await client.done;
    const resets = client.data<{ epoch: string; fromSeq: number }>('reset');
    expect(resets.length).toBeGreaterThanOrEqual(1);
    // What a client keeps: events, minus those a reset replaced.
    let kept: RunEvent[] = [];
    for (const message of client.messages) {
      if (message.event === 'run-event') kept.push(JSON.parse(message.data) as RunEvent);
      if (message.event === 'reset') {
        const { fromSeq } = JSON.parse(message.data) as { fromSeq: number };
        kept = kept.filter((e) => e.seq < fromSeq);
      }
    }
    expect(kept).toEqual(await allEvents(workflowId));
    expect(seqs(kept)).toEqual(kept.map((_, i) => i + 1));
    expect(client.data('end')).toEqual([{ status: 'completed' }]);
  });

  it('stays gap-free across continue-as-new', async () => {
    const turns = 25;
    const steps = [...Array.from({ length: turns }, (_, i) => callStep({ name: 'add', args: { a: i, b: 1 } })), finalStep('all turns done')];
    const { workflowId } = await agents.start(scriptedInput(steps, { policy: { maxIterations: 100, maxToolCalls: 100, continueAsNewAfterEvents: 40 } }));
    const client = events(workflowId);
    await client.done;
    const seen = runEvents(client);
    expect(seqs(seen)).toEqual(seen.map((_, i) => i + 1));
    expect(seen.filter((e) => e.type === 'tool_result')).toHaveLength(turns);
    expect(seen.at(-1)).toMatchObject({ type: 'status_changed', to: 'completed' });
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    expect(history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
    // The newest events, as the last execution answers them, are the ones the stream sent.
    const tail = await agents.events(workflowId, 0, 1000);
    expect(seen.slice(seen.length - tail.events.length)).toEqual(tail.events);
  });

  it('gives 6 concurrent subscribers the same sequence from one follower', async () => {
    const { workflowId } = await agents.start(watchlistRun([addAapl, finalStep()]));
    const started = server.live.stats().feedsStarted;
    const clients = Array.from({ length: 6 }, () => events(workflowId));
    const toolCallIds = await Promise.all(clients.map(approvalOf));
    expect(server.live.stats().feedsStarted - started).toBe(1);
    await agents.decide(workflowId, { decision: 'approve', toolCallId: toolCallIds[0] as string });
    await Promise.all(clients.map((c) => c.done));
    const all = await allEvents(workflowId);
    for (const client of clients) expect(runEvents(client)).toEqual(all);
    expect(server.live.stats().feedsStarted - started).toBe(1);
  });
});

describe('announcements of new events', () => {
  it('a publisher flooding announcements for a watched run makes its follower read a few times a second, not once per announcement', async () => {
    const { workflowId } = await agents.start(watchlistRun([addAapl, finalStep()]));
    const client = events(workflowId);
    const toolCallId = await approvalOf(client);
    const announce = (i: number) =>
      fetch(`${server.url}/api/deltas`, { method: 'POST', headers: { ...bearer('publisher'), 'content-type': 'application/json' }, body: JSON.stringify({ deltas: [], events: [{ workflowId, lastSeq: 1_000 + i }] }) });
    const before = serverQueries.get(workflowId) ?? 0;
    const woken = server.live.stats().announcementsWaking;
    const started = performance.now();
    for (let i = 0; i < 300; i++) expect((await announce(i)).status).toBe(204);
    const elapsedMs = performance.now() - started;
    const reads = (serverQueries.get(workflowId) ?? 0) - before;
    expect(server.live.stats().announcementsWaking - woken).toBe(300);
    // One read per 250 ms of announcements at most, and the read in flight when they began.
    expect(reads).toBeLessThanOrEqual(Math.ceil(elapsedMs / 250) + 2);
    // Nothing is lost: the run's later events still reach the stream.
    await agents.decide(workflowId, { decision: 'approve', toolCallId });
    await client.done;
    expect(runEvents(client)).toEqual(await allEvents(workflowId));
  });
});

describe('reading a run for hours', () => {
  it("keeps no abort listener per read on a feed's stop signal (the client leaves one per call under a signal)", async () => {
    const { workflowId } = await agents.start(watchlistRun([addAapl, finalStep()]));
    const handle = env.client.workflow.getHandle(workflowId);
    const stop = new AbortController();
    for (let i = 0; i < 20; i++) await callUntil(agents.client, stop.signal, () => handle.describe());
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
    // What a feed did before: one listener (holding its gRPC call) left per read, for ever.
    const shared = new AbortController();
    setMaxListeners(50, shared.signal);
    for (let i = 0; i < 20; i++) await agents.client.withAbortSignal(shared.signal, () => handle.describe());
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(20);
    // Stopping still cancels a call in flight: the result of a run that waits for its approval.
    const waiting = callUntil(agents.client, stop.signal, () => handle.result()).then(
      () => 'answered',
      (err: Error) => err.name,
    );
    stop.abort();
    expect(await waiting).not.toBe('answered');
    await agents.kill(workflowId, { reason: 'read enough' });
  });
});

describe('AI SDK UI message stream', () => {
  it('projects a run with an approval onto UI message parts, ending with finish and [DONE]', async () => {
    const { workflowId } = await agents.start(watchlistRun([addAapl, finalStep('added')]));
    const client = new SseClient(`${server.url}/api/runs/${workflowId}/ui-stream?access_token=${tokens.viewer}`);
    const partsOf = () => client.messages.filter((m) => m.data !== '[DONE]').map((m) => JSON.parse(m.data) as { type: string; [k: string]: unknown });
    await client.until('tool-approval-request', () => partsOf().some((p) => p.type === 'tool-approval-request'));
    const request = partsOf().find((p) => p.type === 'tool-approval-request') as unknown as { approvalId: string; toolCallId: string };
    await agents.decide(workflowId, { decision: 'approve', toolCallId: request.toolCallId });
    await client.done;
    expect(client.headers?.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const parts = partsOf();
    const types = parts.map((p) => p.type);
    expect(types[0]).toBe('start');
    expect(types.at(-1)).toBe('finish');
    expect(client.messages.at(-1)?.data).toBe('[DONE]');
    expect(parts).toContainEqual({ type: 'tool-input-available', toolCallId: request.toolCallId, toolName: 'add_to_watchlist', input: { symbols: ['AAPL'] } });
    expect(request.approvalId).toBe(request.toolCallId);
    expect(parts).toContainEqual(expect.objectContaining({ type: 'tool-output-available', toolCallId: request.toolCallId }));
    expect(types.filter((t) => t === 'start-step').length).toBe(types.filter((t) => t === 'finish-step').length);
    const textId = (parts.find((p) => p.type === 'text-start') as unknown as { id: string }).id;
    expect(parts.filter((p) => p.type === 'text-delta' && p.id === textId).map((p) => p.delta).join('')).toBe('added');
    expect(types).toEqual(expect.arrayContaining(['data-run_started', 'data-plan', 'data-approval_decided', 'data-final', 'text-end']));
    expect(types.indexOf('tool-approval-request')).toBeLessThan(types.indexOf('tool-output-available'));
  });
});

/** A WebSocket client collecting JSON messages. */
type TestSocket = { ws: WebSocket; messages: Record<string, unknown>[]; until: (what: string, p: (m: Record<string, unknown>) => boolean) => Promise<Record<string, unknown>>; opened: Promise<void> };

/** A WebSocket client of a run's socket. */
function socket(workflowId: string, role: Role): TestSocket {
  return socketAt(`/api/runs/${workflowId}/ws`, role);
}

/** A WebSocket client of the socket at `path` (its query, if any, is kept). */
function socketAt(path: string, role: Role): TestSocket {
  const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}${path}${path.includes('?') ? '&' : '?'}access_token=${tokens[role]}`);
  const messages: Record<string, unknown>[] = [];
  const listeners: (() => void)[] = [];
  ws.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as Record<string, unknown>);
    for (const l of listeners) l();
  });
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const until = (what: string, p: (m: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 60_000);
      const check = () => {
        const found = messages.find(p);
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      };
      listeners.push(check);
      check();
    });
  return { ws, messages, until, opened };
}

describe('WebSocket', () => {
  it('sends the feed out and takes control messages in, with the HTTP roles and errors', async () => {
    const { workflowId } = await agents.start(watchlistRun([addAapl, finalStep()]));
    const viewer = socket(workflowId, 'viewer');
    const operator = socket(workflowId, 'operator');
    await Promise.all([viewer.opened, operator.opened]);
    const approval = (await operator.until('approval_requested', (m) => m.type === 'event' && (m.event as RunEvent).type === 'approval_requested')).event as Extract<RunEvent, { type: 'approval_requested' }>;

    viewer.ws.send(JSON.stringify({ id: 'p1', type: 'pause' }));
    expect(await viewer.until('pause result', (m) => m.type === 'result')).toMatchObject({ id: 'p1', ok: false, body: { error: { type: 'forbidden' } } });

    operator.ws.send(JSON.stringify({ id: 'bad', type: 'decide', decision: 'approve' }));
    const bad = await operator.until('bad result', (m) => m.type === 'result' && m.id === 'bad');
    expect(bad).toMatchObject({ ok: false, body: { error: { type: 'invalid_input' } } });
    expect((bad.body as { error: { message: string } }).error.message).toContain('toolCallId');
    operator.ws.send('not json');
    expect(await operator.until('non-JSON result', (m) => m.type === 'result' && m.id === null)).toMatchObject({ ok: false, body: { error: { type: 'invalid_input' } } });

    operator.ws.send(JSON.stringify({ id: 'ok', type: 'decide', decision: 'approve', toolCallId: approval.toolCallId }));
    const ok = await operator.until('decide result', (m) => m.type === 'result' && m.id === 'ok');
    expect(ok.ok).toBe(true);
    expect(await operator.until('end', (m) => m.type === 'end')).toEqual({ type: 'end', status: 'completed' });
    const sent = operator.messages.filter((m) => m.type === 'event').map((m) => m.event);
    expect(sent).toEqual(await allEvents(workflowId));
    const decided = (await allEvents(workflowId)).find((e) => e.type === 'approval_decided');
    expect(decided).toMatchObject({ by: 'operator-user' });
    viewer.ws.close();
    operator.ws.close();

    const refused = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/runs/${workflowId}/ws?access_token=not-a-valid-token-at-all`);
    const status = await new Promise<number>((resolve) => refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(401);
    refused.on('error', () => undefined);
    refused.terminate();
  });
});

describe("a session's WebSocket", () => {
  const hold = { plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: 600_000 } }] }, { type: 'final', text: 'held' }] } };
  const say = (text: string) => ({ plannerOptions: { steps: [{ type: 'final', text }] } });
  const sessionEvent = (p: (e: SessionEvent) => boolean) => (m: Record<string, unknown>) => m.type === 'event' && p(m.event as SessionEvent);

  it("follows the session's events from a cursor and takes its operations (sendMessage, editQueue) as messages, naming the session and field when one is bad; watching writes nothing", async () => {
    const sessionId = `ws-${Date.now()}`;
    const session = agents.session(sessionId);
    await session.open({ agent: 'scripted' });
    const first = await session.sendMessage({ content: 'hold', messageId: 'hold', ...hold });
    const viewer = socketAt(`/api/sessions/${sessionId}/ws`, 'viewer');
    const operator = socketAt(`/api/sessions/${sessionId}/ws?after=0`, 'operator');
    await Promise.all([viewer.opened, operator.opened]);
    await operator.until('run 1 started', sessionEvent((e) => e.type === 'run_started' && e.runNumber === 1));
    await waitFor('the first run to call its tool', async () => ((await agents.events(first.workflowId).catch(() => undefined))?.events.some((e) => e.type === 'tool_call') ? true : undefined));

    // A message while the run is active: queued (enqueue), the decision an event on every socket.
    operator.ws.send(JSON.stringify({ id: 'send-b', type: 'sendMessage', content: 'say b', messageId: 'b', whenBusy: 'enqueue', ...say('b') }));
    expect(await operator.until('sendMessage result', (m) => m.type === 'result' && m.id === 'send-b')).toMatchObject({ ok: true, body: { runNumber: 2, messageId: 'b', status: 'queued' } });
    for (const s of [operator, viewer]) await s.until('b queued', sessionEvent((e) => e.type === 'message_taken' && e.messageId === 'b' && e.delivery === 'queued'));
    expect((await session.status()).queue?.map((m) => m.messageId)).toEqual(['b']);

    // A viewer reads, but may not write.
    viewer.ws.send(JSON.stringify({ id: 'v', type: 'sendMessage', content: 'from a viewer' }));
    expect(await viewer.until('viewer result', (m) => m.type === 'result' && m.id === 'v')).toMatchObject({ ok: false, body: { error: { type: 'forbidden' } } });

    // A bad payload names the session and the field; the socket stays up and takes the next message.
    operator.ws.send(JSON.stringify({ id: 'bad', type: 'sendMessage', content: 'say c', whenBusy: 'sometimes' }));
    const bad = await operator.until('bad result', (m) => m.type === 'result' && m.id === 'bad');
    expect(bad).toMatchObject({ ok: false, body: { error: { type: 'invalid_input' } } });
    expect((bad.body as { error: { message: string } }).error.message).toMatch(new RegExp(`session ${sessionId}: message\\.whenBusy: `));
    operator.ws.send(JSON.stringify({ id: 'no-action', type: 'editQueue', messageId: 'b' }));
    const noAction = await operator.until('no-action result', (m) => m.type === 'result' && m.id === 'no-action');
    expect((noAction.body as { error: { message: string } }).error.message).toContain(`session ${sessionId}: message.action`);

    operator.ws.send(JSON.stringify({ id: 'drop-b', type: 'editQueue', action: 'drop', messageId: 'b', reason: 'not needed' }));
    expect(await operator.until('editQueue result', (m) => m.type === 'result' && m.id === 'drop-b')).toMatchObject({ ok: true, body: [] });
    await operator.until('b dropped', sessionEvent((e) => e.type === 'queue_edited' && e.action === 'drop' && e.messageId === 'b'));
    expect((await session.status()).queue).toEqual([]);
    // A message that no longer waits is refused by the session, naming it.
    operator.ws.send(JSON.stringify({ id: 'drop-again', type: 'editQueue', action: 'drop', messageId: 'b' }));
    const again = await operator.until('second drop result', (m) => m.type === 'result' && m.id === 'drop-again');
    expect(again).toMatchObject({ ok: false, body: { error: { type: 'rejected', message: expect.stringContaining('message b does not wait in the queue') } } });

    await agents.kill(first.workflowId, { reason: 'done holding' });
    operator.ws.send(JSON.stringify({ id: 'close', type: 'close' }));
    expect(await operator.until('close result', (m) => m.type === 'result' && m.id === 'close')).toMatchObject({ ok: true });
    expect(await operator.until('end', (m) => m.type === 'end')).toEqual({ type: 'end', status: 'completed' });
    // Every event once, in order: what the session keeps.
    const kept = (await session.events()).events;
    expect(operator.messages.filter((m) => m.type === 'event').map((m) => m.event)).toEqual(kept);
    expect(viewer.messages.filter((m) => m.type === 'event').map((m) => m.event)).toEqual(kept);
    viewer.ws.close();
    operator.ws.close();

    // A socket opened later resumes after its cursor, and ends with the session.
    const late = socketAt(`/api/sessions/${sessionId}/ws?after=${kept.length - 2}`, 'viewer');
    await late.until('end', (m) => m.type === 'end');
    expect(late.messages.filter((m) => m.type === 'event').map((m) => m.event)).toEqual(kept.slice(-2));
    late.ws.close();

    // Watching wrote nothing to the session: its only updates are the three messages sent to it.
    const history = await env.client.workflow.getHandle(session.workflowId).fetchHistory();
    const updates = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name);
    expect(updates).toEqual(['sendMessage', 'sendMessage', 'editQueue']);

    const missing = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/sessions/no-such-session-${Date.now()}/ws?access_token=${tokens.viewer}`);
    missing.on('error', () => undefined);
    const status = await new Promise<number>((resolve) => missing.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(404);
    missing.terminate();
  });
});

describe("a session's WebSocket across continue-as-new", () => {
  it('sends every event once, in seq order, to each of its sockets from one follower, while the session continues as new after each run', async () => {
    const sessionId = `ws-can-${Date.now()}`;
    const session = agents.session(sessionId);
    await session.open({ agent: 'scripted', runsPerExecution: 1 });
    const watcher = socketAt(`/api/sessions/${sessionId}/ws`, 'viewer');
    await watcher.opened;
    // Five more sockets on the session: one follower for all of them.
    const extra = Array.from({ length: 5 }, () => socketAt(`/api/sessions/${sessionId}/ws`, 'viewer'));
    await Promise.all(extra.map((x) => x.opened));
    expect(server.live.sessions.size).toBe(1);
    for (const id of ['one', 'two', 'three']) {
      const record = await session.sendMessage({ content: id, messageId: id, plannerOptions: { steps: [{ type: 'final', text: id }] } });
      await agents.result(record.workflowId);
    }
    await waitFor('the third run recorded', async () => ((await session.status()).runs.some((r) => r.runNumber === 3 && r.status === 'completed') ? true : undefined));
    await session.close();
    await watcher.until('end', (m) => m.type === 'end');
    for (const x of extra) {
      await x.until('end', (m) => m.type === 'end');
      expect(x.messages.filter((m) => m.type === 'event')).toEqual(watcher.messages.filter((m) => m.type === 'event'));
      x.ws.close();
    }
    const history = await env.client.workflow.getHandle(session.workflowId).fetchHistory();
    expect(history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
    const sent = watcher.messages.filter((m) => m.type === 'event').map((m) => m.event as SessionEvent);
    expect(sent).toEqual((await session.events()).events);
    expect(sent.map((e) => e.seq)).toEqual(sent.map((_, i) => i + 1));
    expect(sent.filter((e) => e.type === 'run_ended').map((e) => e.runNumber)).toEqual([1, 2, 3]);
    watcher.ws.close();
  });
});

describe('token deltas', () => {
  const answer = 'AAPL is on your watchlist now; streamed in small pieces.';
  const llmInput: RunInput = { agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Add AAPL' }], sessionState: { watchlist: [] } };
  const script = () => fake.script(callTools(toolCall('add_to_watchlist', { symbols: ['AAPL'] }, 'w1')), say(answer));

  async function callModelResults(workflowId: string): Promise<unknown[]> {
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = new Map<number, string>();
    for (const e of history.events ?? []) {
      const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
      if (name) scheduled.set(Number(e.eventId), name);
    }
    return (history.events ?? [])
      .map((e) => e.activityTaskCompletedEventAttributes)
      .filter((a) => a && scheduled.get(Number(a.scheduledEventId)) === 'callModel')
      .map((a) => defaultPayloadConverter.fromPayload(a?.result?.payloads?.[0] ?? {}));
  }

  /**
   * History event types, without workflow tasks, updates and timers: their number depends on
   * timing. The events stream long-polls with updates, and a long poll that arrives before the
   * next event waits on a timer of its own (one that arrives after returns at once, and leaves
   * no timer in history).
   */
  async function stableTypes(workflowId: string): Promise<string[]> {
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? []).map((e) => String(temporal.api.enums.v1.EventType[e.eventType ?? 0])).filter((t) => !/WORKFLOW_TASK|UPDATE|TIMER/.test(t));
  }

  async function runApproved(client: AgentClient, workflowId: string): Promise<SseClient> {
    script();
    await client.start(llmInput, { workflowId });
    const stream = events(workflowId);
    await client.decide(workflowId, { decision: 'approve', toolCallId: await approvalOf(stream) });
    await stream.done;
    expect(fake.remaining).toBe(0);
    return stream;
  }

  it('streams the model answer as delta events that join to the answer, and history is the same as without them', async () => {
    const suffix = String(Date.now());
    const withDeltas = await runApproved(agents, `deltas-on-${suffix}`);
    const deltas = withDeltas.data<TokenDelta>('delta');
    const finalTurn = deltas.filter((d) => d.kind === 'text');
    expect(finalTurn.length).toBeGreaterThan(1);
    expect(finalTurn.map((d) => d.text).join('')).toBe(answer);
    expect(finalTurn.map((d) => d.seq)).toEqual([...finalTurn.map((d) => d.seq)].sort((a, b) => a - b));
    expect(new Set(finalTurn.map((d) => d.activityId)).size).toBe(1);
    expect(withDeltas.messages.filter((m) => m.event === 'delta').every((m) => m.id === undefined)).toBe(true);
    expect(runEvents(withDeltas).find((e) => e.type === 'final')).toMatchObject({ response: { text: answer } });

    const without = await runApproved(plain, `deltas-no-${suffix}`);
    expect(without.data('delta')).toEqual([]);
    // Deltas travel beside the workflow: the same history events and the same model results.
    expect(await stableTypes(`deltas-on-${suffix}`)).toEqual(await stableTypes(`deltas-no-${suffix}`));
    expect(await callModelResults(`deltas-on-${suffix}`)).toEqual(await callModelResults(`deltas-no-${suffix}`));
    expect(publisher.stats.dropped).toBe(0);
  });

  it("a publisher token alone cannot put words in a run's mouth: deltas not signed for their model call are refused, naming the run and key id", async () => {
    const { workflowId, runId } = await agents.start(watchlistRun([addAapl, finalStep()]));
    const stream = events(workflowId);
    const toolCallId = await approvalOf(stream);
    // A delta of the run's next turn, as its model call would stream it.
    const forged = { workflowId, runId, activityId: '1', attempt: 1, turn: 1, seq: 0, kind: 'text', text: 'Transferring your savings now.', at: Date.now() };
    const call = { workflowId, runId, activityId: '1', attempt: 1 };
    /** The documented signature: HMAC-SHA256 over the call's JSON array, base64url. */
    const sign = (key: Uint8Array) => createHmac('sha256', key).update(JSON.stringify([workflowId, runId, '1', 1])).digest('base64url');
    const post = async (body: unknown) => {
      const response = await fetch(`${server.url}/api/deltas`, { method: 'POST', headers: { ...bearer('publisher'), 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json().catch(() => ({}))) as { error?: { type: string; message: string } } };
    };
    const unsigned = await post({ deltas: [forged] });
    expect(unsigned.status).toBe(403);
    expect(unsigned.body.error?.message).toContain(workflowId);
    expect(unsigned.body.error?.message).toContain('"deltas-2026-11"');
    const wrongKey = await post({ deltas: [forged], signatures: [{ ...call, keyId: deltaKey.id, signature: sign(randomBytes(32)) }] });
    expect(wrongKey.status).toBe(403);
    expect(wrongKey.body.error?.message).toContain(workflowId);
    expect(wrongKey.body.error?.message).toContain('"deltas-2026-11"');
    const unknownKey = await post({ deltas: [forged], signatures: [{ ...call, keyId: 'retired-key', signature: sign(deltaKey.key) }] });
    expect(unknownKey.status).toBe(403);
    expect(unknownKey.body.error?.message).toContain('"retired-key"');
    // A signature binds one call: it does not vouch for another activity of the run.
    const otherCall = await post({ deltas: [{ ...forged, activityId: '2' }], signatures: [{ ...call, keyId: deltaKey.id, signature: sign(deltaKey.key) }] });
    expect(otherCall.status).toBe(403);
    const withoutRunId = await post({ deltas: [{ ...forged, runId: undefined }] });
    expect(withoutRunId.status).toBe(403);
    // What the worker of the call sends is taken.
    expect((await post({ deltas: [{ ...forged, seq: 1, text: 'signed' }], signatures: [{ ...call, keyId: deltaKey.id, signature: sign(deltaKey.key) }] })).status).toBe(204);
    expect(server.live.currentDeltas(workflowId).map((d) => d.text)).toEqual(['signed']);

    await agents.decide(workflowId, { decision: 'approve', toolCallId });
    await stream.done;
    expect(stream.data<TokenDelta>('delta').map((d) => d.text)).not.toContain(forged.text);
  });

  it('refuses deltas without the publisher role, and checks the batch', async () => {
    const post = (role: Role, body: unknown) =>
      fetch(`${server.url}/api/deltas`, { method: 'POST', headers: { ...bearer(role), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post('operator', { deltas: [] })).status).toBe(403);
    const bad = await post('publisher', { deltas: [{ workflowId: 'x' }] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('body.deltas.0.activityId');
    expect((await post('publisher', { deltas: [] })).status).toBe(204);
  });
});
