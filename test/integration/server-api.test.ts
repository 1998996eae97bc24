/**
 * The HTTP control API against a real dev server and worker: every route through `fetch`, with
 * viewer / operator / admin tokens, and the JSON errors of each kind.
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { AgentClient } from '../../client/agent-client';
import { signWebhookDelivery, startAgentServer, type AgentServer } from '../../server';
import type { AuthConfig } from '../../server/auth';
import { agentTenantSearchAttribute } from '../../contracts';
import type { TenantsConfig } from '../../contracts/tenant-settings';
import { agentSuite } from '../support/agent-suite';
import { addAapl, callStep, contextStep, finalStep, scriptedInput, watchlistRun, type Observation } from '../support/scripts';
import { testWorkflowsPath, uniqueTaskQueue } from '../support/test-env';
import { waitFor } from '../support/wait';

// A namespace of its own: paging waits for a settled list of every scripted run in the namespace.
// The deployment's tenants file: runs of a tenant join its account (GET /api/tenants/:tenant).
const tenants: TenantsConfig = { default: { quota: {} }, tenants: { acme: { quota: { concurrentRuns: 20 } } } };
const suite = agentSuite('server-api', undefined, { ownNamespace: true, plugin: { tenants } });
const tokens = { viewer: 'viewer-token-0123456789', operator: 'operator-token-0123456789', admin: 'admin-token-0123456789', acme: 'acme-operator-token-0123456789', globex: 'globex-operator-token-0123456789', acmeAdmin: 'acme-admin-token-0123456789' };
const auth: AuthConfig = {
  localDev: false,
  tokens: [
    { name: 'vera', role: 'viewer', token: tokens.viewer },
    { name: 'olivia', role: 'operator', token: tokens.operator },
    { name: 'ada', role: 'admin', token: tokens.admin },
    { name: 'acme-ops', role: 'operator', token: tokens.acme, tenant: 'acme' },
    { name: 'globex-ops', role: 'operator', token: tokens.globex, tenant: 'globex' },
    { name: 'acme-admin', role: 'admin', token: tokens.acmeAdmin, tenant: 'acme' },
  ],
};
/** Webhook sources: `ci` takes the raw body and the Idempotency-Key header; `shop` fills a template and keys by a body field; `scoped` may post to `hook-scoped-*` only. */
const secrets = { ci: randomBytes(32), shop: randomBytes(32), scoped: randomBytes(32) };
const webhooks = {
  sources: [
    { source: 'ci', secret: secrets.ci },
    { source: 'shop', secret: secrets.shop, idempotencyField: 'order.id', template: 'add {{order.symbol}} to my watchlist' },
    { source: 'scoped', secret: secrets.scoped, sessions: ['hook-scoped-*'] },
  ],
};
let server: AgentServer;

beforeAll(async () => {
  server = await startAgentServer({ agents: suite.agents, auth, workflowsPath: testWorkflowsPath, webhooks });
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

/** One request; `as` picks the token (none when undefined). */
async function call(method: string, path: string, options: { as?: Role; body?: unknown; base?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.as) headers.authorization = `Bearer ${tokens[options.as]}`;
  // Every write says it is JSON, with or without a body (the server refuses others with 415).
  if (method !== 'GET') headers['content-type'] = 'application/json';
  const response = await fetch(`${options.base ?? server.url}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const get = (path: string, as: Role = 'viewer') => call('GET', path, { as });
const post = (path: string, body: unknown, as: Role = 'operator') => call('POST', path, { as, body });
const runPath = (id: string, rest = '') => `/api/runs/${encodeURIComponent(id)}${rest}`;
const uid = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

async function waitForApprovals(id: string): Promise<{ toolCallId: string }[]> {
  return waitFor('a call waiting for confirmation', async () => {
    const { body } = await get(runPath(id, '/pending'));
    return body.approvals?.length > 0 ? body.approvals : undefined;
  });
}

function expectError(reply: Reply, status: number, type: string, message?: RegExp): void {
  expect({ status: reply.status, type: reply.body?.error?.type }).toEqual({ status, type });
  expect(typeof reply.body.error.message).toBe('string');
  if (message) expect(reply.body.error.message).toMatch(message);
}

describe('auth and errors', () => {
  it('401 without or with a wrong token, 403 below the role, whoami names the holder', async () => {
    expectError(await call('GET', '/api/runs'), 401, 'unauthorized', /missing bearer token/);
    const wrong = await fetch(`${server.url}/api/runs`, { headers: { authorization: 'Bearer not-a-token-of-this-server' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('not-a-token-of-this-server');
    expect(await get('/api/whoami', 'operator')).toEqual({ status: 200, body: { name: 'olivia', role: 'operator', localDev: false } });
    expectError(await post('/api/runs', scriptedInput([finalStep()]), 'viewer'), 403, 'forbidden', /vera has role viewer; this needs operator/);
    expect(await call('GET', '/api/health')).toMatchObject({ status: 200, body: { ok: true } });
  });

  it('400 names the bad field, 404 an unknown run or route', async () => {
    expectError(await post('/api/runs', { agent: 'scripted', messages: [] }), 400, 'invalid_input', /^body\.messages: a run needs at least one message/);
    expectError(await post('/api/runs', '{"agent":'), 400, 'invalid_input', /the request body is not JSON/);
    expectError(await get('/api/runs?limit=0'), 400, 'invalid_input', /^query\.limit: /);
    expectError(await get('/api/runs?status=sleepy'), 400, 'invalid_input', /^query\.status: /);
    expectError(await get('/api/runs?pageToken=bm90LWEtdG9rZW4='), 400, 'invalid_input', /^query\.pageToken: not a page token/);
    expectError(await get(runPath('no-such-run')), 404, 'run_not_found', /no-such-run/);
    expectError(await post(runPath('no-such-run', '/pause'), {}), 404, 'run_not_found');
    expectError(await get('/api/nothing-here'), 404, 'not_found', /openapi\.json/);
  });
});

describe('runs', () => {
  it('start, list with filters, status, pending, approve (by the token holder), result, history', async () => {
    const id = uid('api-approve');
    const started = await post('/api/runs', { ...watchlistRun([addAapl, contextStep]), workflowId: id });
    expect(started).toMatchObject({ status: 201, body: { workflowId: id, runId: expect.any(String) } });
    expectError(await post('/api/runs', { ...watchlistRun([addAapl, contextStep]), workflowId: id }), 409, 'already_started');

    expect(await waitForApprovals(id)).toEqual([expect.objectContaining({ toolCallId: 'call_0_0', name: 'add_to_watchlist', args: { symbols: ['AAPL'] } })]);
    const listed = await waitFor('the run listed as awaiting', async () => {
      const { body } = await get('/api/runs?agent=watchlist-scripted&status=awaiting');
      return body.runs.find((r: { workflowId: string }) => r.workflowId === id);
    });
    expect(listed).toMatchObject({ workflowId: id, runId: started.body.runId, agent: 'watchlist-scripted', status: 'awaiting', temporalStatus: 'RUNNING', waitingForHuman: true });
    expect((await get('/api/runs?agent=scripted')).body.runs.map((r: { workflowId: string }) => r.workflowId)).not.toContain(id);
    // details=true: the turn and cost of each run, from its status query while it runs.
    const detailed = (await get('/api/runs?agent=watchlist-scripted&status=awaiting&details=true')).body.runs.find((r: { workflowId: string }) => r.workflowId === id);
    expect(detailed).toMatchObject({ turn: 0, iterations: 0, cost: { toolCalls: { used: 0 }, elapsedMs: expect.any(Number) } });
    expect(await get(runPath(id))).toMatchObject({ status: 200, body: { status: 'awaiting', agent: 'watchlist-scripted' } });

    expect(await post(runPath(id, '/decisions'), { decision: 'approve', toolCallId: 'call_0_0' })).toEqual({ status: 200, body: { approvals: [] } });
    const result = await get(runPath(id, '/result'));
    expect(result).toMatchObject({ status: 200, body: { status: 'completed', sessionState: { watchlist: ['AAPL'] } } });
    const decided = (await suite.agents.events(id, 0, 1000)).events.find((e) => e.type === 'approval_decided');
    expect(decided).toMatchObject({ decision: 'approve', by: 'olivia' });

    const history = await get(runPath(id, '/history'));
    expect(history.status).toBe(200);
    expect(history.body.events.length).toBeGreaterThan(4);
    expect(history.body.events[0]).toHaveProperty('workflowExecutionStartedEventAttributes');
    expect(await get(runPath(id))).toMatchObject({ status: 200, body: { status: 'completed' } });
    // …and from its result once it has completed.
    const done = (await get('/api/runs?agent=watchlist-scripted&details=true')).body.runs.find((r: { workflowId: string }) => r.workflowId === id);
    expect(done).toMatchObject({ status: 'completed', iterations: 1, cost: { toolCalls: { used: 1 } } });
  });

  it('a start under the id of a closed run is 409 already_exists naming it; reuseClosedId starts a new run, and the old result stays readable by its run id', async () => {
    const id = uid('api-reuse');
    const first = await post('/api/runs', { ...scriptedInput([finalStep('first')]), workflowId: id });
    expect((await get(runPath(id, '/result'))).body).toMatchObject({ final: { text: 'first' } });
    const refused = await post('/api/runs', { ...scriptedInput([finalStep('second')]), workflowId: id });
    expectError(refused, 409, 'already_exists', new RegExp(`^a closed run has id ${id} \\(run id ${first.body.runId}, completed\\)`));
    expect(refused.body.error.message).toContain(`agentctl result ${id} --run-id ${first.body.runId}`);
    expect((await get(runPath(id, '/result'))).body).toMatchObject({ final: { text: 'first' } });

    const second = await post('/api/runs', { ...scriptedInput([finalStep('second')]), workflowId: id, reuseClosedId: true });
    expect(second).toMatchObject({ status: 201, body: { workflowId: id, runId: expect.any(String) } });
    expect(second.body.runId).not.toBe(first.body.runId);
    expect((await get(runPath(id, '/result'))).body).toMatchObject({ final: { text: 'second' } });
    expect((await get(`${runPath(id, '/result')}?runId=${first.body.runId}`)).body).toMatchObject({ final: { text: 'first' } });
    expectError(await post('/api/runs', { ...scriptedInput([finalStep()]), workflowId: id, reuseClosedId: 'yes' }), 400, 'invalid_input', /^body\.reuseClosedId: /);
  });

  it("a run that failed before it could answer queries: its status comes from history", async () => {
    const { body } = await post('/api/runs', { agent: 'no-such-agent', messages: [{ role: 'user', content: 'hi' }] });
    const status = await waitFor('the status from history', async () => {
      const reply = await get(runPath(body.workflowId));
      return reply.status === 200 && reply.body.source === 'history' ? reply.body : undefined;
    });
    expect(status).toMatchObject({ workflowId: body.workflowId, agent: 'no-such-agent', workflowStatus: 'FAILED', failure: expect.stringContaining('no-such-agent') });
    // Its worker polls: it ended before it could answer, no worker is missing.
    expect(status).not.toHaveProperty('noWorker');
  });

  it('pages with limit and pageToken', async () => {
    await Promise.all([1, 2].map(() => post('/api/runs', scriptedInput([finalStep('page')]))));
    // Page over a settled listing: a run that closes between two page reads moves in the
    // visibility order, and the second page could then show it again.
    const first = await waitFor('two runs listed, both ended', async () => {
      const all = (await get('/api/runs?agent=scripted&limit=10')).body as { runs: { temporalStatus: string }[] };
      if (all.runs.length < 2 || all.runs.some((r) => r.temporalStatus === 'RUNNING')) return undefined;
      const { body } = await get('/api/runs?agent=scripted&limit=1');
      return body.nextPageToken ? body : undefined;
    });
    expect(first.runs).toHaveLength(1);
    const second = await get(`/api/runs?agent=scripted&limit=1&pageToken=${encodeURIComponent(first.nextPageToken)}`);
    expect(second.body.runs).toHaveLength(1);
    expect(second.body.runs[0].workflowId).not.toBe(first.runs[0].workflowId);
  });

  it('pause while a call waits, interventions, budget, resume; 422 where the run refuses, 409 once it ended', async () => {
    const { body } = await post('/api/runs', scriptedInput([callStep({ name: 'echo', args: { text: 'a' } }), finalStep()], { confirmation: { all: true } }));
    const id = body.workflowId as string;
    await waitForApprovals(id);
    expectError(await post(runPath(id, '/resume'), {}), 422, 'rejected', /not paused/);
    const pausing = post(runPath(id, '/pause'), { reason: 'look first' });
    // The pause answers once the run is paused, after the call: approve once the run has it.
    await waitFor('the pause requested', async () => (await suite.agents.events(id, 0, 1000)).events.find((e) => e.type === 'pause_requested'));
    await post(runPath(id, '/decisions'), { decision: 'approve', toolCallId: 'call_0_0', by: 'bob' });
    expect(await pausing).toMatchObject({ status: 200, body: { status: 'paused' } });
    expect((await get(runPath(id))).body).toMatchObject({ status: 'paused', pauseReason: 'look first' });

    expect(await post(runPath(id, '/interventions'), { kind: 'inject_message', role: 'user', content: 'also say hello' })).toMatchObject({
      status: 200,
      body: { kind: 'inject_message', state: expect.stringMatching(/^(queued|applied)$/) },
    });
    expectError(await post(runPath(id, '/interventions'), { kind: 'edit_call', toolCallId: 'call_9_9', args: {} }), 422, 'rejected', /call_9_9/);
    expectError(await post(runPath(id, '/interventions'), { kind: 'teleport' }), 400, 'invalid_input', /^body\.kind: /);
    expect(await post(runPath(id, '/budget'), { maxToolCalls: 10 })).toMatchObject({ status: 200, body: { toolCalls: { max: 10 } } });
    expectError(await post(runPath(id, '/budget'), { maxToolCalls: 'ten' }), 400, 'invalid_input', /^body\.maxToolCalls: /);

    const resumed = await post(runPath(id, '/resume'), { reason: 'fine' });
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).not.toBe('paused');
    expect((await get(runPath(id, '/result'))).body).toMatchObject({ status: 'completed' });

    expectError(await post(runPath(id, '/pause'), {}), 409, 'run_ended');
    expectError(await post(runPath(id, '/decisions'), { decision: 'approve', toolCallId: 'call_0_0' }), 409, 'run_ended');
  });

  it('kill needs admin: operator gets 403 JSON, admin ends the run', async () => {
    const { body } = await post('/api/runs', scriptedInput([callStep({ name: 'echo', args: { text: 'a' } }), finalStep()], { confirmation: { all: true } }));
    const id = body.workflowId as string;
    await waitForApprovals(id);
    expectError(await post(runPath(id, '/kill'), { reason: 'enough' }, 'operator'), 403, 'forbidden', /olivia has role operator; this needs admin/);
    expect(await post(runPath(id, '/kill'), { reason: 'enough' }, 'admin')).toMatchObject({ status: 200, body: { status: 'terminated' } });
    expect((await get(runPath(id, '/result'))).body).toMatchObject({ status: 'terminated' });
    expectError(await post(runPath(id, '/kill'), {}, 'admin'), 409, 'run_ended');
  });

  it('503 for a start on a task queue no worker has polled, naming it and allowNoWorker; allowNoWorker starts the run', async () => {
    const queue = uniqueTaskQueue('api-no-worker');
    const elsewhere = await startAgentServer({ agents: new AgentClient(suite.env.client, queue), auth });
    try {
      const input = scriptedInput([finalStep('never')]);
      expectError(await call('POST', '/api/runs', { as: 'operator', body: input, base: elsewhere.url }), 503, 'unavailable');
      expect((await call('POST', '/api/runs', { as: 'operator', body: input, base: elsewhere.url })).body.error.message).toBe(
        `no worker polls task queue ${queue} (none seen in the last 5 minutes); the run was not started: start a worker on task queue ${queue}, ` +
          `or use the task queue your workers poll (the API server's TEMPORAL_TASK_QUEUE), or pass "allowNoWorker": true in the body to start it anyway (it waits on the queue for a worker)`,
      );
      expectError(await call('POST', '/api/runs', { as: 'operator', body: { ...input, allowNoWorker: 'yes' }, base: elsewhere.url }), 400, 'invalid_input', /^body\.allowNoWorker: /);
      const started = await call('POST', '/api/runs', { as: 'operator', body: { ...input, allowNoWorker: true }, base: elsewhere.url });
      expect(started).toMatchObject({ status: 201, body: { workflowId: expect.any(String) } });
      const handle = suite.env.client.workflow.getHandle(started.body.workflowId);
      expect((await handle.describe()).taskQueue).toBe(queue);
      // Nothing will run it; the paging case counts the namespace's open runs.
      await handle.terminate('no worker in this test');
    } finally {
      await elsewhere.close();
    }
  });

  it('answers an await item; the run refuses an unknown option with 422', async () => {
    const barrier: ScriptStep = {
      type: 'await',
      await: { items: [{ kind: 'questions', id: 'prefs', questions: [{ id: 'color', prompt: 'Favourite colour?', options: [{ id: 'red', label: 'Red' }, { id: 'blue', label: 'Blue' }] }] }] },
    };
    const { body } = await post('/api/runs', scriptedInput([barrier, finalStep()]));
    const id = body.workflowId as string;
    const open = await waitFor('an open await', async () => (await get(runPath(id, '/pending'))).body.await);
    expect(open.items).toEqual([expect.objectContaining({ id: 'prefs', kind: 'questions', answered: false })]);
    expectError(await post(runPath(id, '/answers'), { kind: 'questions', itemId: 'prefs', answers: { color: ['green'] } }), 422, 'rejected', /unknown option green/);
    expect((await post(runPath(id, '/answers'), { kind: 'questions', itemId: 'prefs', answers: { color: ['blue'] } })).status).toBe(200);
    expect((await get(runPath(id, '/result'))).body).toMatchObject({ status: 'completed' });
  });
});

describe('tenants', () => {
  const ids = (runs: { workflowId: string }[]) => runs.map((r) => r.workflowId);
  const describeRun = (id: string) => suite.env.client.workflow.getHandle(id).describe();

  it("a token scoped to a tenant starts runs under it, lists only its tenant's runs, and gets 403 for another tenant's run; a run without a tenant is as before", async () => {
    const acmeId = uid('tenant-acme');
    const globexId = uid('tenant-globex');
    const plainId = uid('tenant-none');
    expect(await post('/api/runs', { ...watchlistRun([addAapl, contextStep]), workflowId: acmeId }, 'acme')).toMatchObject({ status: 201 });
    expect(await post('/api/runs', { ...watchlistRun([addAapl, contextStep]), workflowId: globexId }, 'globex')).toMatchObject({ status: 201 });
    expect(await post('/api/runs', { ...watchlistRun([addAapl, contextStep]), workflowId: plainId })).toMatchObject({ status: 201 });
    await waitForApprovals(acmeId);
    await waitForApprovals(plainId);

    // The tenant is in the run's status, its search attribute and its memo; a run without one has it nowhere.
    expect(await get(runPath(acmeId), 'acme')).toMatchObject({ status: 200, body: { tenant: 'acme', status: 'awaiting' } });
    const acme = await describeRun(acmeId);
    expect(acme.typedSearchAttributes.get(agentTenantSearchAttribute)).toBe('acme');
    expect(acme.memo).toMatchObject({ agent: 'watchlist-scripted', tenant: 'acme' });
    const plain = await describeRun(plainId);
    expect(plain.typedSearchAttributes.get(agentTenantSearchAttribute)).toBeUndefined();
    expect(plain.memo).toEqual({ agent: 'watchlist-scripted' });
    expect((await get(runPath(plainId))).body).not.toHaveProperty('tenant');

    // Lists: a scoped token sees its tenant's runs only; an unscoped one filters by ?tenant=.
    const acmeList = await waitFor("acme's run listed", async () => {
      const { body } = await get('/api/runs?limit=1000', 'acme');
      return ids(body.runs).includes(acmeId) ? body.runs : undefined;
    });
    expect(acmeList.every((r: { tenant?: string }) => r.tenant === 'acme')).toBe(true);
    expect(ids(acmeList)).not.toContain(globexId);
    expect(ids(acmeList)).not.toContain(plainId);
    const globexList = await waitFor("globex's run listed", async () => {
      const { body } = await get('/api/runs?tenant=globex&limit=1000', 'admin');
      return ids(body.runs).includes(globexId) ? body.runs : undefined;
    });
    expect(ids(globexList)).not.toContain(acmeId);
    expect(ids((await get('/api/runs?limit=1000', 'admin')).body.runs)).toEqual(expect.arrayContaining([acmeId, globexId, plainId]));
    expectError(await get('/api/runs?tenant=globex', 'acme'), 403, 'forbidden', /^query\.tenant: acme-ops is scoped to tenant "acme"/);
    expectError(await get('/api/runs?tenant=not%20a%20tenant', 'admin'), 400, 'invalid_input', /^query\.tenant: /);

    // The real temporal CLI finds the tenant's runs by AgentTenant.
    const cli = process.env.TEMPORAL_CLI_PATH ?? '.tools/temporal/bin/temporal';
    const listedByCli = await waitFor('the CLI lists acme', async () => {
      const { stdout } = await promisify(execFile)(cli, ['workflow', 'list', '--query', 'AgentTenant="acme"', '--address', suite.env.address, '--namespace', suite.env.namespace ?? 'default', '--output', 'json']);
      return stdout.includes(acmeId) ? stdout : undefined;
    });
    expect(listedByCli).not.toContain(globexId);

    // Another tenant's run (or a run of none), by id: refused, whatever the route, naming the token's tenant only.
    for (const reply of [
      await get(runPath(globexId), 'acme'),
      await get(runPath(globexId, '/events'), 'acme'),
      await post(runPath(globexId, '/pause'), {}, 'acme'),
      await post(runPath(globexId, '/decisions'), { decision: 'approve', toolCallId: 'call_0_0' }, 'acme'),
      await get(runPath(plainId), 'acme'),
    ]) {
      expectError(reply, 403, 'forbidden', /acme-ops is scoped to tenant "acme": "tenant-(globex|none)-[0-9a-f]+" is not a run or session of that tenant/);
      expect(reply.body.error.message).not.toContain('globex"');
    }
    expectError(await post('/api/runs', { ...watchlistRun([addAapl]), workflowId: globexId, reuseClosedId: true }, 'acme'), 403, 'forbidden');
    expectError(await get('/api/inbox', 'acme'), 403, 'forbidden', /scoped to tenant "acme".*not "\/api\/inbox"/);
    expect((await get(runPath(globexId), 'globex')).status).toBe(200);
    expectError(await get(runPath('no-such-run'), 'acme'), 404, 'run_not_found');

    // Naming a tenant: a scoped token only its own; an unscoped one only as admin; a bad id is 400 naming the field.
    expectError(await post('/api/runs', { ...scriptedInput([finalStep()]), tenant: 'globex' }, 'acme'), 403, 'forbidden', /^body\.tenant: acme-ops is scoped to tenant "acme"/);
    expectError(await post('/api/runs', { ...scriptedInput([finalStep()]), tenant: 'globex' }, 'operator'), 403, 'forbidden', /^body\.tenant: naming a tenant needs an admin token/);
    expectError(await post('/api/runs', { ...scriptedInput([finalStep()]), tenant: 'no spaces' }, 'admin'), 400, 'invalid_input', /^body\.tenant: /);
    const named = await post('/api/runs', { ...scriptedInput([finalStep()]), tenant: 'globex' }, 'admin');
    expect(named.status).toBe(201);
    expect(await get(runPath(named.body.workflowId, '/result'), 'globex')).toMatchObject({ status: 200, body: { status: 'completed' } });

    for (const [id, as] of [[acmeId, 'acme'], [globexId, 'globex'], [plainId, 'operator']] as const) {
      expect(await post(runPath(id, '/decisions'), { decision: 'approve', toolCallId: 'call_0_0' }, as)).toMatchObject({ status: 200 });
    }
    expect(await get(runPath(acmeId, '/result'), 'acme')).toMatchObject({ status: 200, body: { status: 'completed' } });
  });

  it("a session opened by a scoped token carries its tenant to the session and its runs; another tenant's token cannot reach or list it", async () => {
    const sessionId = uid('tenant-session');
    const opened = await post('/api/sessions', { sessionId, agent: 'watchlist-scripted', sessionState: { watchlist: [] }, message: { content: 'show', plannerOptions: { steps: [finalStep('nothing yet')] } } }, 'acme');
    expect(opened).toMatchObject({ status: 201, body: { run: { workflowId: expect.any(String) } } });
    const runId = opened.body.run.workflowId as string;
    expect(await get(runPath(runId, '/result'), 'acme')).toMatchObject({ status: 200, body: { status: 'completed' } });
    const run = await describeRun(runId);
    expect(run.typedSearchAttributes.get(agentTenantSearchAttribute)).toBe('acme');
    expect(run.memo).toMatchObject({ tenant: 'acme', sessionId: `session-${sessionId}` });
    expect((await describeRun(`session-${sessionId}`)).typedSearchAttributes.get(agentTenantSearchAttribute)).toBe('acme');
    const listed = await waitFor('the session listed for acme', async () => {
      const { body } = await get('/api/sessions?limit=1000', 'acme');
      return body.sessions.find((e: { sessionId: string }) => e.sessionId === sessionId);
    });
    expect(listed).toMatchObject({ tenant: 'acme', status: 'open' });
    expect(await get(`/api/sessions/${sessionId}`, 'acme')).toMatchObject({ status: 200, body: { tenant: 'acme', agent: 'watchlist-scripted' } });
    expect((await get('/api/sessions?limit=1000', 'globex')).body.sessions.map((e: { sessionId: string }) => e.sessionId)).not.toContain(sessionId);
    expectError(await get(`/api/sessions/${sessionId}`, 'globex'), 403, 'forbidden', /globex-ops is scoped to tenant "globex"/);
    expectError(await post('/api/sessions', { sessionId, agent: 'watchlist-scripted', message: { content: 'hi' } }, 'globex'), 403, 'forbidden');
    expectError(await get(runPath(runId), 'globex'), 403, 'forbidden');
    expect(await post(`/api/sessions/${sessionId}/close`, {}, 'acme')).toMatchObject({ status: 204 });
  });

  it("a tenant's account: its own token and unscoped ones read it, another tenant's gets 403; only an unscoped admin changes its quota, 400 naming the field", async () => {
    const quotaPath = '/api/tenants/acme/quota';
    const put = (path: string, body: unknown, as: Role) => call('PUT', path, { as, body });
    const done = await post('/api/runs', scriptedInput([finalStep()]), 'acme');
    expect(await get(runPath(done.body.workflowId, '/result'), 'acme')).toMatchObject({ status: 200, body: { status: 'completed' } });
    const today = new Date().toISOString().slice(0, 10);
    const account = await waitFor("acme's account saw its run", async () => {
      const { status, body } = await get('/api/tenants/acme', 'acme');
      return status === 200 && body.counters.admitted >= 1 && body.running === 0 ? body : undefined;
    });
    expect(account).toMatchObject({ tenant: 'acme', quota: { concurrentRuns: 20 }, configured: { concurrentRuns: 20 }, waiting: 0, queue: [], day: { period: today, modelCalls: 0 }, month: { period: today.slice(0, 7) } });
    expect(account).not.toHaveProperty('override');
    expect(await get('/api/tenants/acme', 'viewer')).toMatchObject({ status: 200, body: { tenant: 'acme' } });
    expectError(await get('/api/tenants/acme', 'globex'), 403, 'forbidden', /^globex-ops is scoped to tenant "globex": it reads that tenant's account only, not "acme"'s$/);
    expectError(await get(`/api/tenants/nobody-${randomUUID().slice(0, 8)}`, 'admin'), 404, 'not_found', /^tenant "nobody-[0-9a-f]+" has no account/);
    expectError(await get('/api/tenants/not%20a%20tenant', 'admin'), 400, 'invalid_input', /^params\.tenant: /);

    // A tenant may not raise its own quota, whatever its token's role; an unscoped operator may not either.
    expectError(await put(quotaPath, { quota: { concurrentRuns: 100 } }, 'acme'), 403, 'forbidden', /acme-ops has role operator; this needs admin/);
    expectError(await put(quotaPath, { quota: { concurrentRuns: 100 } }, 'acmeAdmin'), 403, 'forbidden', /^acme-admin is scoped to tenant "acme": quotas are set by the deployment's admins/);
    expectError(await put(quotaPath, { quota: { concurrentRuns: 100 } }, 'operator'), 403, 'forbidden', /needs admin/);
    expectError(await put(quotaPath, { quota: { concurrentRuns: -1 } }, 'admin'), 400, 'invalid_input', /^body\.quota\.concurrentRuns: /);
    expectError(await put(quotaPath, { quota: { costPerDay: 'lots' } }, 'admin'), 400, 'invalid_input', /^body\.quota\.costPerDay: /);
    expectError(await put(quotaPath, { quota: { concurentRuns: 5 } }, 'admin'), 400, 'invalid_input', /^body\.quota: .*concurentRuns/);
    expectError(await put(quotaPath, {}, 'admin'), 400, 'invalid_input', /^body\.quota: /);
    expectError(await call('PUT', quotaPath, { as: 'admin', body: 'not json' }), 400, 'invalid_input', /not JSON/);

    const raised = await put(quotaPath, { quota: { concurrentRuns: 5, costPerDay: 2.5, whenOver: 'refuse' } }, 'admin');
    expect(raised).toMatchObject({ status: 200, body: { tenant: 'acme', quota: { concurrentRuns: 5, costPerDay: 2.5, whenOver: 'refuse' }, override: { concurrentRuns: 5, costPerDay: 2.5, whenOver: 'refuse' }, configured: { concurrentRuns: 20 } } });
    expect((await get('/api/tenants/acme', 'acme')).body.quota).toEqual({ concurrentRuns: 5, costPerDay: 2.5, whenOver: 'refuse' });
    const reset = await put(quotaPath, { quota: null }, 'admin');
    expect(reset).toMatchObject({ status: 200, body: { quota: { concurrentRuns: 20 } } });
    expect(reset.body).not.toHaveProperty('override');

    // A quota set before a tenant's first run starts its account.
    const fresh = `fresh-${randomUUID().slice(0, 8)}`;
    expect(await put(`/api/tenants/${fresh}/quota`, { quota: { startsPerMinute: 10 } }, 'admin')).toMatchObject({ status: 200, body: { tenant: fresh, quota: { startsPerMinute: 10 }, openRuns: 0 } });
    expect(await get(`/api/tenants/${fresh}`, 'admin')).toMatchObject({ status: 200, body: { tenant: fresh } });

    // Two API servers: the account is the tenant's workflow, so a quota set through one is the other's at once.
    const second = await startAgentServer({ agents: suite.agents, auth });
    try {
      expect(await call('PUT', `/api/tenants/${fresh}/quota`, { as: 'admin', body: { quota: { startsPerMinute: 30 } }, base: second.url })).toMatchObject({ status: 200 });
      expect((await get(`/api/tenants/${fresh}`, 'admin')).body.quota).toEqual({ startsPerMinute: 30 });
    } finally {
      await second.close();
    }
  });
});

describe('checkpoints, rewind and fork', () => {
  let id: string;
  let firstRunId: string;

  beforeAll(async () => {
    const steps = [callStep({ name: 'echo', args: { text: 'one' } }), callStep({ name: 'add', args: { a: 1, b: 2 } }), finalStep('three turns')];
    // A tenant's run: a rewind and a fork keep its tenant.
    ({ workflowId: id, runId: firstRunId } = await suite.agents.start(scriptedInput(steps, { tenant: 'acme' })));
    await suite.agents.result(id);
  });

  it('lists a checkpoint per turn; rewind needs admin and continues under a new run id', async () => {
    const { status, body } = await get(runPath(id, '/checkpoints'));
    expect(status).toBe(200);
    expect(body.checkpoints.map((c: { turn: number; summary: { toolCalls: string[] } }) => [c.turn, c.summary.toolCalls])).toEqual([[0, ['echo']], [1, ['add']], [2, []]]);

    expectError(await post(runPath(id, '/rewind'), { toTurn: 1 }, 'operator'), 403, 'forbidden');
    expectError(await post(runPath(id, '/rewind'), { toTurn: 9 }, 'admin'), 422, 'rejected', /turn/);
    const rewound = await post(runPath(id, '/rewind'), { toTurn: 1, reason: 'again' }, 'admin');
    expect(rewound).toMatchObject({ status: 200, body: { checkpoint: { turn: 1 }, corrections: 'none' } });
    expect(rewound.body.runId).not.toBe(firstRunId);
    expect((await get(runPath(id, '/result'))).body).toMatchObject({ status: 'completed', final: { text: 'three turns' } });
    expect((await get(`${runPath(id, '/checkpoints')}?runId=${firstRunId}`)).body.checkpoints).toHaveLength(3);
    expect((await suite.env.client.workflow.getHandle(id).describe()).typedSearchAttributes.get(agentTenantSearchAttribute)).toBe('acme');
    expect(await get(runPath(id), 'acme')).toMatchObject({ status: 200, body: { tenant: 'acme' } });

    // Where it was rewound, read back from the history of the execution the rewind started.
    const rewinds = await get(runPath(id, '/rewinds'));
    expect(rewinds).toMatchObject({ status: 200, body: { rewinds: [{ runId: rewound.body.runId, replacedRunId: firstRunId, turn: 1, reason: 'again', corrections: [] }] } });
    const checkpoint = (await get(runPath(id, '/checkpoints'))).body.checkpoints.find((c: { turn: number }) => c.turn === 1);
    expect(Date.parse(rewinds.body.rewinds[0].time)).toBeLessThanOrEqual(Date.parse(checkpoint.time));
    expect((await get(`${runPath(id, '/rewinds')}?runId=${firstRunId}`)).body).toEqual({ rewinds: [] });
    expectError(await get(`${runPath(id, '/rewinds')}?runId=latest`), 400, 'invalid_input', /^query\.runId: not a run id/);
    expectError(await get(runPath('no-such-run', '/rewinds')), 404, 'run_not_found', /no-such-run/);
  });

  it('forks to a new workflow id with a fix; without workflowsPath the server answers 501', async () => {
    const forkId = uid('api-fork');
    const forked = await post(
      runPath(id, '/fork'),
      { toTurn: 1, workflowId: forkId, with: [{ kind: 'edit_call', toolCallId: 'call_1_0', args: { a: 10, b: 5 }, upcoming: true }] },
      'admin',
    );
    expect(forked).toMatchObject({ status: 201, body: { workflowId: forkId, runId: expect.any(String), checkpoint: { turn: 1 } } });
    const result = await get(runPath(forkId, '/result'));
    expect(result.body).toMatchObject({ status: 'completed', final: { text: 'three turns' } });
    expect((result.body.final.structured as Observation[]).find((o) => o.name === 'add')).toMatchObject({ status: 'ok', result: { sum: 15 } });
    expect((await suite.env.client.workflow.getHandle(forkId).describe()).typedSearchAttributes.get(agentTenantSearchAttribute)).toBe('acme');
    expectError(await get(runPath(forkId), 'globex'), 403, 'forbidden');

    expectError(await post(runPath(id, '/fork'), { toTurn: 0 }, 'admin'), 400, 'invalid_input', /^body\.toTurn: /);
    // A fork under the id of a closed run (here the run itself) would take the id over: refused, naming it.
    expectError(await post(runPath(id, '/fork'), { toTurn: 1, workflowId: id }, 'admin'), 409, 'already_exists', new RegExp(`^a closed run has id ${id} \\(run id [^,]+, completed\\).*a fork takes a workflow id no run has`));
    expect((await get(runPath(id, '/result'))).body).toMatchObject({ status: 'completed', final: { text: 'three turns' } });
    const bare = await startAgentServer({ agents: suite.agents, auth });
    try {
      expectError(await call('POST', runPath(id, '/fork'), { as: 'admin', body: { toTurn: 1 }, base: bare.url }), 501, 'not_configured', /workflowsPath/);
    } finally {
      await bare.close();
    }
  });
});

describe('sessions', () => {
  it('POST /api/sessions with a message opens the session when needed and sends it in the same call', async () => {
    const sessionId = uid('api-uws');
    const message = (text: string) => ({ content: text, plannerOptions: { steps: [{ type: 'final', text }] } });
    const [a, b] = await Promise.all([post('/api/sessions', { sessionId, agent: 'scripted', message: message('a') }), post('/api/sessions', { sessionId, agent: 'scripted', message: message('b') })]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect([a.body.run.runNumber, b.body.run.runNumber].sort()).toEqual([1, 2]);
    expect(a.body.workflowId).toBe(`session-${sessionId}`);
    expectError(await post('/api/sessions', { sessionId, agent: 'watchlist-scripted', message: message('c') }), 422, 'rejected', /runs agent scripted, not watchlist-scripted/);
    const { status, body } = await get(`/api/sessions/${sessionId}/events?after=0`);
    expect(status).toBe(200);
    expect(body.events.filter((e: { type: string }) => e.type === 'message_taken')).toHaveLength(2);
    // Asked again after its last seq: only newer ones (its runs may have gone on meanwhile).
    const newer = (await get(`/api/sessions/${sessionId}/events?after=${body.lastSeq}`)).body.events as { seq: number }[];
    expect(newer.every((e) => e.seq > body.lastSeq)).toBe(true);
    await post(`/api/sessions/${sessionId}/close`, {});
  });

  it('open, send a message, read the report and the run, list, close', async () => {
    const sessionId = uid('api-session');
    expect(await post('/api/sessions', { sessionId, agent: 'scripted' })).toEqual({ status: 201, body: { workflowId: `session-${sessionId}` } });
    expect((await post('/api/sessions', { sessionId, agent: 'scripted' })).status).toBe(201);
    expectError(await post('/api/sessions', { sessionId, agent: 'watchlist-scripted' }), 422, 'rejected', /already open with agent scripted/);
    expectError(await post('/api/sessions', { agent: 'scripted' }), 400, 'invalid_input', /^body\.sessionId: /);
    expectError(await post(`/api/sessions/${sessionId}/messages`, { content: '' }), 400, 'invalid_input', /^body\.content: the message must not be empty/);

    const sent = await post(`/api/sessions/${sessionId}/messages`, { content: 'say hi', plannerOptions: { steps: [{ type: 'final', text: 'hi' }] } });
    expect(sent).toMatchObject({ status: 200, body: { runNumber: 1, workflowId: `session-${sessionId}/run-1` } });
    const result = await waitFor('the session run', async () => {
      const reply = await get(runPath(sent.body.workflowId, '/result'));
      return reply.status === 200 ? reply.body : undefined;
    });
    expect(result).toMatchObject({ status: 'completed', final: { text: 'hi' } });
    const report = await waitFor('the run recorded', async () => {
      const { body } = await get(`/api/sessions/${sessionId}`);
      return body.runs?.[0]?.status === 'completed' ? body : undefined;
    });
    expect(report).toMatchObject({ agent: 'scripted', open: true, historyLength: 2 });
    const listed = await waitFor('the session listed', async () => (await get('/api/sessions?limit=100')).body.sessions.find((s: { sessionId: string }) => s.sessionId === sessionId));
    expect(listed).toMatchObject({ workflowId: `session-${sessionId}`, status: 'open', startTime: expect.any(String) });

    expectError(await call('POST', `/api/sessions/${sessionId}/close`, { as: 'viewer' }), 403, 'forbidden');
    expectError(await fetch(`${server.url}/api/sessions/${sessionId}/close`, { method: 'POST', headers: { authorization: `Bearer ${tokens.operator}` } }).then(async (r) => ({ status: r.status, body: await r.json() })), 415, 'unsupported_media_type');
    expect(await call('POST', `/api/sessions/${sessionId}/close`, { as: 'operator' })).toEqual({ status: 204, body: undefined });
    await waitFor('the session listed as completed', async () => {
      const { body } = await get('/api/sessions?limit=100');
      return body.sessions.some((s: { sessionId: string; status: string }) => s.sessionId === sessionId && s.status === 'completed') ? true : undefined;
    });
    expectError(await get('/api/sessions/no-such-session'), 404, 'run_not_found');
  });
});

describe('message ids and webhooks', () => {
  const sessionRuns = async (sessionId: string): Promise<{ runNumber: number; messageId?: string; status: string }[]> => (await get(`/api/sessions/${sessionId}`)).body.runs;

  it('POST /messages takes a messageId, or the Idempotency-Key header: a retried POST queues one run', async () => {
    const sessionId = uid('api-idem');
    await post('/api/sessions', { sessionId, agent: 'scripted' });
    const message = { content: 'say hi', plannerOptions: { steps: [{ type: 'final', text: 'hi' }] } };
    const withKey = (key: string) => fetch(`${server.url}/api/sessions/${sessionId}/messages`, { method: 'POST', headers: { authorization: `Bearer ${tokens.operator}`, 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(message) }).then(async (r) => ({ status: r.status, body: await r.json() }));
    const [first, retried] = [await withKey('k-1'), await withKey('k-1')];
    expect(first).toMatchObject({ status: 200, body: { runNumber: 1, messageId: 'k-1' } });
    expect(retried).toMatchObject({ status: 200, body: { runNumber: 1, messageId: 'k-1' } });
    // The body's id wins over the header's.
    expect(await post(`/api/sessions/${sessionId}/messages`, { ...message, messageId: 'k-1' })).toMatchObject({ status: 200, body: { runNumber: 1 } });
    expect(await post(`/api/sessions/${sessionId}/messages`, { ...message, messageId: 'k-2' })).toMatchObject({ status: 200, body: { runNumber: 2, messageId: 'k-2' } });
    expectError(await post(`/api/sessions/${sessionId}/messages`, { ...message, messageId: 'two words' }), 400, 'invalid_input', /^body\.messageId: a message id is printable ASCII/);
    expectError(await withKey('x'.repeat(200)), 400, 'invalid_input', /^header Idempotency-Key: a message id is at most 128 characters/);
    expect((await sessionRuns(sessionId)).map((r) => [r.runNumber, r.messageId])).toEqual([
      [1, 'k-1'],
      [2, 'k-2'],
    ]);
    await call('POST', `/api/sessions/${sessionId}/close`, { as: 'operator' });
  });

  /** One webhook delivery: signed with `secret` at `timestamp` unless the headers given say otherwise. */
  async function deliver(sessionId: string, source: string, body: string, options: { secret?: Buffer; key?: string; timestamp?: number; headers?: Record<string, string> } = {}): Promise<Reply> {
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    const secret = options.secret ?? secrets[source as keyof typeof secrets] ?? randomBytes(32);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-durable-agents-timestamp': String(timestamp),
      'x-durable-agents-signature': signWebhookDelivery(secret, timestamp, body),
      ...(options.key !== undefined ? { 'idempotency-key': options.key } : {}),
      ...options.headers,
    };
    const response = await fetch(`${server.url}/api/sessions/${encodeURIComponent(sessionId)}/webhooks/${source}`, { method: 'POST', headers, body });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  it('a signed delivery becomes the next message (raw JSON, or a template); a redelivery, and one racing itself, queue one run', async () => {
    const sessionId = uid('api-hook');
    await post('/api/sessions', { sessionId, agent: 'watchlist', sessionState: { watchlist: [] }, confirmation: { exempt: ['add_to_watchlist'] } });
    const raw = JSON.stringify({ event: 'deploy_finished', service: 'api' });
    const first = await deliver(sessionId, 'ci', raw, { key: 'delivery-1' });
    expect(first).toEqual({ status: 202, body: { sessionId, source: 'ci', messageId: 'ci:delivery-1', run: { runNumber: 1, workflowId: `session-${sessionId}/run-1`, messageId: 'ci:delivery-1', status: 'queued' } } });
    // The same delivery again (the sender did not see the answer): its run, nothing sent.
    expect(await deliver(sessionId, 'ci', raw, { key: 'delivery-1' })).toMatchObject({ status: 202, body: { messageId: 'ci:delivery-1', run: { runNumber: 1 } } });
    // The raw JSON is the run's user message.
    const history = await waitFor('the first run', async () => {
      const reply = await get(runPath(first.body.run.workflowId, '/history'));
      return reply.status === 200 ? reply.body : undefined;
    });
    const started = history.events[0].workflowExecutionStartedEventAttributes.input.payloads[0];
    expect(JSON.parse(Buffer.from(started.data, 'base64').toString('utf8'))).toMatchObject({ messages: [{ role: 'user', content: raw }] });

    // A template, keyed by a body field; two deliveries of one order at once: one run.
    const order = JSON.stringify({ order: { id: 9001, symbol: 'AAPL' } });
    const raced = await Promise.all([deliver(sessionId, 'shop', order), deliver(sessionId, 'shop', order)]);
    expect(raced.map((r) => [r.status, r.body.messageId, r.body.run.runNumber])).toEqual([
      [202, 'shop:9001', 2],
      [202, 'shop:9001', 2],
    ]);
    const report = await waitFor('both runs completed', async () => {
      const { body } = await get(`/api/sessions/${sessionId}`);
      return body.runs?.length === 2 && body.runs.every((r: { status: string }) => r.status === 'completed') ? body : undefined;
    });
    expect(report.sessionState).toEqual({ watchlist: ['AAPL'] });
    expect(report.runs.map((r: { messageId: string }) => r.messageId)).toEqual(['ci:delivery-1', 'shop:9001']);

    // A closed session takes no more deliveries: 409 naming it.
    expect((await call('POST', `/api/sessions/${sessionId}/close`, { as: 'operator' })).status).toBe(204);
    await waitFor('the session to end', async () => ((await get(`/api/sessions?limit=100`)).body.sessions.some((s: { sessionId: string; status: string }) => s.sessionId === sessionId && s.status === 'completed') ? true : undefined));
    expectError(await deliver(sessionId, 'ci', raw, { key: 'delivery-2' }), 409, 'run_ended', new RegExp(`^session "${sessionId}" is closed: it takes no more messages \\(webhook source "ci"\\)`));
    expectError(await deliver('no-such-session', 'ci', raw, { key: 'delivery-3' }), 404, 'run_not_found', /^session "no-such-session" not found \(webhook source "ci"\)/);
  });

  it('deliveries to a session that continues as new after every run are each taken once, redeliveries included', async () => {
    const sessionId = uid('api-hook-can');
    await post('/api/sessions', { sessionId, agent: 'watchlist', sessionState: { watchlist: [] }, runsPerExecution: 1 });
    const keys = Array.from({ length: 4 }, (_, i) => `burst-${i}`);
    // A pair at a time, while the runs before end and the session continues as new between them.
    const replies: Reply[] = [];
    for (const key of keys) replies.push(...(await Promise.all([deliver(sessionId, 'ci', JSON.stringify({ key }), { key }), deliver(sessionId, 'ci', JSON.stringify({ key }), { key })])));
    expect(replies.map((r) => r.status)).toEqual(replies.map(() => 202));
    for (const key of keys) {
      const runs = new Set(replies.filter((r) => r.body.messageId === `ci:${key}`).map((r) => r.body.run.runNumber));
      expect({ key, runs: runs.size }).toEqual({ key, runs: 1 });
    }
    const report = await waitFor('every run completed', async () => {
      const { body } = await get(`/api/sessions/${sessionId}`);
      return body.runs?.length === keys.length && body.runs.every((r: { status: string }) => r.status === 'completed') ? body : undefined;
    });
    expect(report.runs.map((r: { messageId: string }) => r.messageId).sort()).toEqual(keys.map((k) => `ci:${k}`).sort());
    await call('POST', `/api/sessions/${sessionId}/close`, { as: 'operator' });
  });

  it("the sessions guide's curl and openssl example delivers a signed message", async () => {
    const sessionId = uid('api-hook-doc');
    await post('/api/sessions', { sessionId, agent: 'watchlist', sessionState: { watchlist: [] } });
    const guide = readFileSync(join(__dirname, '../../docs/human-in-the-loop.md'), 'utf8');
    const block = [...guide.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((code) => code.includes('openssl dgst'));
    expect(block).toBeDefined();
    const script = (block ?? '')
      .replace(/^API=.*$/m, `API=${server.url}`)
      .replace(/^SECRET=.*$/m, `SECRET='${secrets.ci.toString('base64')}'`)
      .replaceAll('ops-room', sessionId);
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script]);
    expect(JSON.parse(stdout)).toMatchObject({ sessionId, source: 'ci', messageId: 'ci:deploy-4711', run: { runNumber: 1, messageId: 'ci:deploy-4711' } });
    await call('POST', `/api/sessions/${sessionId}/close`, { as: 'operator' });
  });

  it('refuses an unknown source, a bad or missing signature, a stale timestamp, a missing key, a session out of scope: 4xx naming it, nothing queued', async () => {
    const sessionId = uid('api-hook-bad');
    await post('/api/sessions', { sessionId, agent: 'scripted' });
    const body = JSON.stringify({ event: 'ping' });
    expectError(await deliver(sessionId, 'nobody', body, { key: 'k' }), 401, 'unauthorized', /^webhook source "nobody" is not configured on this server/);
    expectError(await deliver(sessionId, 'ci', body, { key: 'k', secret: secrets.shop }), 401, 'unauthorized', /^webhook source "ci": bad signature/);
    expectError(await deliver(sessionId, 'ci', body, { key: 'k', headers: { 'x-durable-agents-signature': '' } }), 401, 'unauthorized', /^webhook source "ci": the delivery has no X-Durable-Agents-Signature header/);
    expectError(await deliver(sessionId, 'ci', body, { key: 'k', timestamp: Math.floor(Date.now() / 1000) - 3600 }), 401, 'unauthorized', /^webhook source "ci": stale timestamp: .* deliveries are taken within 300 s/);
    expectError(await deliver(sessionId, 'ci', body), 400, 'invalid_input', /^webhook source "ci": the delivery has no idempotency key: send it as the Idempotency-Key header/);
    expectError(await deliver(sessionId, 'shop', JSON.stringify({ order: { symbol: 'AAPL' } })), 400, 'invalid_input', /^webhook source "shop": the delivery has no idempotency key: send it as body\.order\.id or the Idempotency-Key header/);
    expectError(await deliver(sessionId, 'shop', JSON.stringify({ order: { id: 'o-1' } })), 400, 'invalid_input', /^webhook source "shop": body\.order\.symbol: missing/);
    expectError(await deliver(sessionId, 'ci', '{"event":', { key: 'k' }), 400, 'invalid_input', /^webhook source "ci": the body is not JSON/);
    expectError(await deliver(sessionId, 'scoped', body, { key: 'k' }), 403, 'forbidden', new RegExp(`^webhook source "scoped" may not post to session "${sessionId}"`));
    // A body changed after signing (the signature covers the exact bytes).
    const timestamp = Math.floor(Date.now() / 1000);
    const tampered = await deliver(sessionId, 'ci', JSON.stringify({ event: 'pong' }), { key: 'k', headers: { 'x-durable-agents-signature': signWebhookDelivery(secrets.ci, timestamp, body), 'x-durable-agents-timestamp': String(timestamp) } });
    expectError(tampered, 401, 'unauthorized', /bad signature/);
    expect(await sessionRuns(sessionId)).toEqual([]);
    await call('POST', `/api/sessions/${sessionId}/close`, { as: 'operator' });
  });
});

describe('session schedules', () => {
  it('create (again: no-op; another spec: 409), 400 naming the bad field, list, describe, pause, trigger, delete; viewers read, operators write', async () => {
    const sessionId = uid('api-schedules');
    const base = `/api/sessions/${sessionId}/schedules`;
    const message = { content: 'say hi', plannerOptions: { steps: [{ type: 'final', text: 'hi' }] } };
    expectError(await post(base, { name: 'daily', cron: '0 9 * * *', message }), 404, 'run_not_found', new RegExp(`session ${sessionId} not found`));
    await post('/api/sessions', { sessionId, agent: 'scripted' });

    expectError(await post(base, { name: 'daily', cron: '0 25 * * *', message }), 400, 'invalid_input', /^body\.cron: hour field '25' is out of range 0-23/);
    expectError(await post(base, { name: 'daily', every: '1s', cron: '@daily', message }), 400, 'invalid_input', /^body\.every: give one of cron, every or at, not cron and every/);
    expectError(await post(base, { name: 'daily', every: 'often', message }), 400, 'invalid_input', /^body\.every: "often" is not a duration/);
    expectError(await post(base, { name: 'daily', at: '2001-01-01T00:00:00Z', message }), 400, 'invalid_input', /at: 2001-01-01T00:00:00Z is in the past/);
    expectError(await post(base, { name: 'daily', cron: '@daily', message: { ...message, whenBusy: 'later' } }), 400, 'invalid_input', /^body\.message\.whenBusy: /);
    expectError(await post(base, { name: 'no/slash', cron: '@daily', message }), 400, 'invalid_input', /invalid schedule name "no\/slash"/);
    expectError(await post(base, { name: 'daily', cron: '@daily', message }, 'viewer'), 403, 'forbidden');

    const spec = { cron: '0 9 * * *', timezone: 'Europe/Berlin', catchupWindow: 'skip', message };
    const created = await post(base, { name: 'daily', ...spec, paused: true });
    expect(created).toMatchObject({ status: 201, body: { scheduleId: `session-${sessionId}/schedule-daily`, name: 'daily', paused: true, firings: 0, spec: { ...spec, paused: true } } });
    expect((await post(base, { name: 'daily', ...spec, paused: true })).status).toBe(201);
    expectError(await post(base, { name: 'daily', ...spec }), 409, 'already_exists', new RegExp(`schedule daily of session ${sessionId} .* exists with another spec`));

    const listed = await waitFor('the schedule listed', async () => {
      const { body } = await get(base);
      return body.schedules?.length === 1 ? body.schedules : undefined;
    });
    expect(listed).toEqual([expect.objectContaining({ name: 'daily', paused: true })]);
    expect(await call('POST', `${base}/daily/trigger`, { as: 'operator' })).toEqual({ status: 204, body: undefined });
    const fired = await waitFor('the triggered firing', async () => {
      const { body } = await get(`${base}/daily`);
      return body.recentFirings?.length === 1 ? body : undefined;
    });
    expect(fired).toMatchObject({ firings: 1, paused: true });
    const record = await waitFor('the run of the firing', async () => {
      const { body } = await get(`/api/sessions/${sessionId}`);
      return body.runs?.[0]?.status === 'completed' ? body.runs[0] : undefined;
    });
    expect(record).toMatchObject({ runNumber: 1, final: 'hi' });
    expect(await post(`${base}/daily/unpause`, { note: 'back on' })).toEqual({ status: 204, body: undefined });
    expect((await get(`${base}/daily`)).body).toMatchObject({ paused: false, note: 'back on' });
    expectError(await post(`${base}/daily/pause`, {}, 'viewer'), 403, 'forbidden');

    expectError(await call('DELETE', `${base}/daily`, { as: 'viewer' }), 403, 'forbidden');
    expect(await call('DELETE', `${base}/daily`, { as: 'operator' })).toEqual({ status: 204, body: undefined });
    expectError(await get(`${base}/daily`), 404, 'not_found', new RegExp(`no schedule daily on session ${sessionId} \\(schedule id session-${sessionId}/schedule-daily\\)`));
    expectError(await call('DELETE', `${base}/daily`, { as: 'operator' }), 404, 'not_found');
    await call('POST', `/api/sessions/${sessionId}/close`, { as: 'operator' });
  });
});

describe('OpenAPI document', () => {
  it('documents every route of the control API with its role and schemas', async () => {
    const { status, body } = await call('GET', '/openapi.json');
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    const expected: [string, string, string][] = [
      ['get', '/api/health', 'public'],
      ['get', '/api/whoami', 'viewer'],
      ['post', '/api/runs', 'operator'],
      ['get', '/api/runs', 'viewer'],
      ['get', '/api/runs/{id}', 'viewer'],
      ['get', '/api/runs/{id}/result', 'viewer'],
      ['post', '/api/runs/{id}/pause', 'operator'],
      ['post', '/api/runs/{id}/resume', 'operator'],
      ['post', '/api/runs/{id}/kill', 'admin'],
      ['post', '/api/runs/{id}/interventions', 'operator'],
      ['post', '/api/runs/{id}/budget', 'operator'],
      ['get', '/api/runs/{id}/pending', 'viewer'],
      ['post', '/api/runs/{id}/decisions', 'operator'],
      ['post', '/api/runs/{id}/answers', 'operator'],
      ['post', '/api/runs/{id}/approval-links', 'operator'],
      ['get', '/api/runs/{id}/checkpoints', 'viewer'],
      ['post', '/api/runs/{id}/rewind', 'admin'],
      ['get', '/api/runs/{id}/rewinds', 'viewer'],
      ['post', '/api/runs/{id}/fork', 'admin'],
      ['get', '/api/runs/{id}/history', 'viewer'],
      ['post', '/api/sessions', 'operator'],
      ['get', '/api/sessions', 'viewer'],
      ['get', '/api/sessions/{id}', 'viewer'],
      ['post', '/api/sessions/{id}/messages', 'operator'],
      ['post', '/api/sessions/{id}/close', 'operator'],
      ['get', '/api/sessions/{id}/ws', 'viewer'],
      ['post', '/api/sessions/{id}/webhooks/{source}', 'public'],
      // The front ends over a session: sending takes the role that sends session messages.
      ['post', '/api/sessions/{id}/chat', 'operator'],
      ['get', '/api/sessions/{id}/chat/stream', 'viewer'],
      ['post', '/api/sessions/{id}/ag-ui', 'viewer'],
      ['get', '/api/tenants/{tenant}', 'viewer'],
      ['put', '/api/tenants/{tenant}/quota', 'admin'],
    ];
    for (const [method, path, role] of expected) {
      const operation = body.paths[path]?.[method];
      expect({ path, method, documented: operation !== undefined }).toEqual({ path, method, documented: true });
      expect(role === 'public' ? operation.security : operation['x-required-role']).toEqual(role === 'public' ? [] : role);
    }
    const start = body.paths['/api/runs'].post;
    expect(start.requestBody.content['application/json'].schema.properties).toHaveProperty('agent');
    expect(start.responses['201']).toBeDefined();
    const list = body.paths['/api/runs'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['agent', 'status', 'limit', 'pageToken']));
    const decision = body.paths['/api/runs/{id}/decisions'].post.requestBody.content['application/json'].schema;
    expect(decision.oneOf ?? decision.anyOf).toHaveLength(4);
  });
});
