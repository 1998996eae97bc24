/**
 * Hostile and mistaken input to the HTTP server against a real dev server and worker: WebSocket
 * messages are bounded, publishers post deltas only for open runs, and every client mistake is
 * a 4xx whose message names the field and echoes at most ~100 characters of the input.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import type { TokenDelta } from '../../contracts/deltas';
import { startAgentServer, type AgentServer } from '../../server';
import type { AuthConfig } from '../../server/auth';
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { waitFor } from '../support/wait';

const suite = agentSuite('server-hostile');
const tokens = { viewer: 'viewer-token-0123456789', operator: 'operator-token-0123456789', admin: 'admin-token-0123456789', publisher: 'publisher-token-0123456789' };
const auth: AuthConfig = {
  localDev: false,
  tokens: [
    { name: 'vera', role: 'viewer', token: tokens.viewer },
    { name: 'olivia', role: 'operator', token: tokens.operator },
    { name: 'ada', role: 'admin', token: tokens.admin },
    { name: 'worker', role: 'publisher', token: tokens.publisher },
  ],
};
let server: AgentServer;

beforeAll(async () => {
  server = await startAgentServer({ agents: suite.agents, auth, agentNames: ['scripted', 'watchlist-scripted'] });
});

afterAll(async () => {
  await server?.close();
});

type Role = keyof typeof tokens;
interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function call(method: string, path: string, options: { as?: Role; body?: unknown; headers?: Record<string, string>; base?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.as) headers.authorization = `Bearer ${tokens[options.as]}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${options.base ?? server.url}${path}`, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const runPath = (id: string, rest = '') => `/api/runs/${encodeURIComponent(id)}${rest}`;

/** A 4xx with `type`, a message matching `message` and shorter than 300 characters. */
function expectShortError(reply: Reply, status: number, type: string, message?: RegExp): void {
  expect({ status: reply.status, type: reply.body?.error?.type }).toEqual({ status, type });
  expect(reply.body.error.message.length).toBeLessThan(300);
  if (message) expect(reply.body.error.message).toMatch(message);
}

/** A run waiting for the approval of its one call. */
async function waitingRun(): Promise<string> {
  const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'a' } }), finalStep()], { confirmation: { all: true } }));
  await waitFor('the approval request', async () => (await suite.agents.pendingInputs(workflowId)).approvals[0]);
  return workflowId;
}

function openSocket(workflowId: string): Promise<{ ws: WebSocket; next: () => Promise<Record<string, unknown>>; closed: Promise<number> }> {
  const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}${runPath(workflowId, '/ws')}`, { headers: { authorization: `Bearer ${tokens.operator}` } });
  const results: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    if (message.type !== 'result') return;
    results.push(message);
    waiters.shift()?.();
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  const next = async () => {
    if (results.length === 0) await new Promise<void>((resolve) => waiters.push(resolve));
    return results.shift() as Record<string, unknown>;
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, next, closed }));
    ws.once('error', reject);
  });
}

describe('WebSocket messages (issue 34 item 2)', () => {
  it('a message above 256 KiB closes the socket with 1009 instead of being read; the run is untouched', async () => {
    const workflowId = await waitingRun();
    const socket = await openSocket(workflowId);
    socket.ws.send(JSON.stringify({ id: 'small', type: 'pause', reason: 'x'.repeat(1000) }).replace('"pause"', '"nope"'));
    expect(await socket.next()).toMatchObject({ id: 'small', ok: false, body: { error: { type: 'invalid_input' } } });
    socket.ws.send(JSON.stringify({ id: 'big', type: 'pause', reason: 'x'.repeat(300 * 1024) }));
    expect(await socket.closed).toBe(1009);
    expect((await suite.agents.status(workflowId)).status).toBe('awaiting');
  });
});

describe('token deltas from publishers (issue 34 item 3)', () => {
  const delta = (workflowId: string, text = 'x'): TokenDelta => ({ workflowId, activityId: '7', attempt: 1, turn: 0, seq: 0, kind: 'text', text, at: Date.now() });
  const postDeltas = (deltas: TokenDelta[]) => call('POST', '/api/deltas', { as: 'publisher', body: { deltas } });

  it('keeps deltas of an open run and drops those of made-up and ended runs', async () => {
    const open = await waitingRun();
    const { workflowId: ended } = await suite.agents.start(scriptedInput([finalStep()]));
    await suite.agents.result(ended);
    const madeUp = `made-up-${randomUUID()}`;
    const refusedBefore = server.live.stats().deltasRefused;

    expect((await postDeltas([delta(madeUp, 'y'.repeat(100_000))])).status).toBe(204);
    expect((await postDeltas([delta(ended), delta(open)])).status).toBe(204);
    expect(server.live.currentDeltas(madeUp)).toEqual([]);
    expect(server.live.currentDeltas(ended)).toEqual([]);
    expect(server.live.currentDeltas(open).map((d) => d.workflowId)).toEqual([open]);
    expect(server.live.stats().deltasRefused - refusedBefore).toBe(2);
  });

  it('refuses a batch naming more than 500 runs', async () => {
    const reply = await postDeltas(Array.from({ length: 501 }, (_, i) => delta(`made-up-${i}`)));
    expectShortError(reply, 400, 'invalid_input', /^body\.deltas: deltas of at most 500 runs per batch/);
  });
});

describe('client mistakes are 4xx with short messages (issue 34 item 5)', () => {
  it('long paths, run ids and Last-Event-ID are echoed cut to ~100 characters', async () => {
    const long = 'p'.repeat(8 * 1024);
    expectShortError(await call('GET', `/api/${long}`, { as: 'viewer' }), 404, 'not_found', /^no route GET "\/api\/p+… \(\d+ more characters\)"/);
    expectShortError(await call('GET', runPath(long), { as: 'viewer' }), 400, 'invalid_input', /^params\.id: at most 1000 characters/);
    const id = `unknown-${'i'.repeat(900)}`;
    const unknown = await call('GET', runPath(id), { as: 'viewer' });
    expectShortError(unknown, 404, 'run_not_found');
    expect(unknown.body.error.message).toContain(id.slice(0, 100));
    const workflowId = await waitingRun();
    const sse = await call('GET', runPath(workflowId, '/events'), { as: 'viewer', headers: { accept: 'text/event-stream', 'last-event-id': 'L'.repeat(8 * 1024) } });
    expectShortError(sse, 400, 'invalid_input', /^header Last-Event-ID: expected the seq of the last event seen, got "L+… \(\d+ more characters\)"$/);
  });

  it('a WebSocket message with a 100 KB id gets a result without it', async () => {
    const socket = await openSocket(await waitingRun());
    socket.ws.send(JSON.stringify({ id: 'i'.repeat(100_000), type: 'pause' }));
    const result = await socket.next();
    expect(result).toMatchObject({ id: null, ok: false, body: { error: { type: 'invalid_input', message: expect.stringMatching(/^message\.id: /) } } });
    expect(JSON.stringify(result).length).toBeLessThan(500);
    socket.ws.send(`{"id": "x", ${'"junk": 1, '.repeat(10_000)}`);
    const notJson = await socket.next();
    expect(notJson).toMatchObject({ id: null, ok: false, body: { error: { type: 'invalid_input', message: expect.stringMatching(/^the message is not JSON/) } } });
    expect(JSON.stringify(notJson).length).toBeLessThan(500);
    socket.ws.close();
  });

  it('the history of an unknown run is 404 naming the run, not a raw NOT_FOUND', async () => {
    const reply = await call('GET', runPath('no-such-run', '/history'), { as: 'viewer' });
    expectShortError(reply, 404, 'run_not_found', /^no run with id "?no-such-run"?$/);
  });

  it('an unknown agent is refused when the server is given its agents; without them the run starts and fails', async () => {
    const input = { agent: 'no-such-agent', messages: [{ role: 'user', content: 'hi' }] };
    expectShortError(await call('POST', '/api/runs', { as: 'operator', body: input }), 400, 'invalid_input', /^body\.agent: unknown agent "no-such-agent"; this server runs "scripted", "watchlist-scripted"$/);
    expectShortError(await call('POST', '/api/sessions', { as: 'operator', body: { sessionId: `s-${randomUUID()}`, agent: 'no-such-agent' } }), 400, 'invalid_input', /^body\.agent: unknown agent/);
    expect((await call('POST', '/api/runs', { as: 'operator', body: scriptedInput([finalStep('ok')]) })).status).toBe(201);
    const bare = await startAgentServer({ agents: suite.agents, auth });
    try {
      expect((await call('POST', '/api/runs', { as: 'operator', body: input, base: bare.url })).status).toBe(201);
    } finally {
      await bare.close();
    }
  });

  it('a tree path that names no sub-agent run is 404 naming body.path', async () => {
    const workflowId = await waitingRun();
    const reply = await call('POST', runPath(workflowId, '/tree/decisions'), { as: 'operator', body: { path: ['call_0_0'], decision: { decision: 'approve', toolCallId: 'call_0_0' } } });
    expectShortError(reply, 404, 'run_not_found', /^body\.path\.0: run "[^"]+" has no sub-agent run for call "call_0_0"$/);
    const long = await call('POST', runPath(workflowId, '/tree/answers'), { as: 'operator', body: { path: ['c'.repeat(5000)], answer: { kind: 'clarification', itemId: 'x', answer: 'y' } } });
    expectShortError(long, 400, 'invalid_input', /^body\.path\.0: /);
  });
});

describe('run ids and workflow ids are checked where they enter', () => {
  it('a malformed runId is 400 naming the field, on every route that takes one', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([finalStep('done')]));
    await suite.agents.result(workflowId);
    const bad = 'not-a-run-id';
    expectShortError(await call('GET', `${runPath(workflowId, '/history')}?runId=${bad}`, { as: 'viewer' }), 400, 'invalid_input', /^query\.runId: not a run id/);
    expectShortError(await call('GET', `${runPath(workflowId, '/checkpoints')}?runId=${bad}`, { as: 'viewer' }), 400, 'invalid_input', /^query\.runId: not a run id/);
    expectShortError(await call('GET', `${runPath(workflowId, '/rewinds')}?runId=${bad}`, { as: 'viewer' }), 400, 'invalid_input', /^query\.runId: not a run id/);
    expectShortError(await call('POST', runPath(workflowId, '/rewind'), { as: 'admin', body: { toTurn: 0, runId: bad } }), 400, 'invalid_input', /^body\.runId: not a run id/);
    expectShortError(await call('POST', runPath(workflowId, '/fork'), { as: 'admin', body: { toTurn: 1, runId: bad } }), 400, 'invalid_input', /^body\.runId: not a run id/);
    // A well-formed run id of no execution of this run is the run's 404.
    expectShortError(await call('GET', `${runPath(workflowId, '/history')}?runId=${randomUUID()}`, { as: 'viewer' }), 404, 'run_not_found');
  });

  it('a workflow id or session id with a lone surrogate is 400 naming the field; nothing starts', async () => {
    const id = `lone-${randomUUID().slice(0, 8)}-\ud800`;
    expectShortError(await call('POST', '/api/runs', { as: 'operator', body: { ...scriptedInput([finalStep()]), workflowId: id } }), 400, 'invalid_input', /^body\.workflowId: /);
    expectShortError(await call('POST', '/api/sessions', { as: 'operator', body: { sessionId: id, agent: 'scripted' } }), 400, 'invalid_input', /^body\.sessionId: /);
    const { workflowId } = await suite.agents.start(scriptedInput([finalStep('done')]));
    expectShortError(await call('POST', runPath(workflowId, '/fork'), { as: 'admin', body: { toTurn: 1, workflowId: id } }), 400, 'invalid_input', /^body\.workflowId: /);
    expectShortError(await call('POST', '/api/chat', { as: 'operator', body: { id, messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] } }), 400, 'invalid_input', /^body\.id: /);
  });
});

describe('the result of a run that has no result', () => {
  it('a failed run answers 409 run_failed with its failure, not 500', async () => {
    const { workflowId } = await suite.agents.start({ agent: 'no-such-agent', messages: [{ role: 'user', content: 'hi' }] });
    const reply = await call('GET', runPath(workflowId, '/result'), { as: 'viewer' });
    expect({ status: reply.status, type: reply.body?.error?.type }).toEqual({ status: 409, type: 'run_failed' });
    expect(reply.body.error.message).toMatch(new RegExp(`^run "${workflowId}" failed: agent "no-such-agent" is not in this bundle; .* \\(its history: GET /api/runs/${workflowId}/history\\)$`));
  });
});
