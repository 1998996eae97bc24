/**
 * Every operation on a run or a session is one row of an operations table (contracts/operations.ts
 * and contracts/session.ts, with their HTTP parts in server/operations.ts): its HTTP route and its
 * WebSocket control message take the same payload, need the same role and call the same client
 * method, and its name is the run's signal of that operation. Against the real HTTP server, with
 * a client whose operations are recorded instead of sent (no Temporal server here).
 */
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter, type UpdateDefinition } from '@temporalio/common';
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { AgentClient } from '../../client/agent-client';
import * as definitions from '../../contracts/definitions';
import { startAgentServer, type AgentServer } from '../../server';
import type { AuthConfig, Principal } from '../../server/auth';
import { controlEnvelopeSchema, handleControlMessage } from '../../server/live/control-messages';
import { operationsOf, runOperations, runOperationsByName, runOperationsHttp, sessionOperations, type HttpParts } from '../../server/operations';
import { operationRoutes, treeOperationRoutes } from '../../server/api/run-operations';
import { openApiDocument } from '../../server/routes';
import { operation, runOperationMessages, runOperationNames } from '../../contracts/operations';
import { pauseRequestSchema, pauseResultSchema } from '../../contracts/control';
import { sessionOperationMessages } from '../../contracts/session';
import type { CostReport } from '../../contracts/run';
import { humanInputs } from '../../testing/eval/human-inputs';
import { documentedOperationsTable, operationsDocCommand, renderOperationsTable } from '../../scripts/operations-doc';

/** An AgentClient that records what it was asked to do. */
class RecordingAgents extends AgentClient {
  readonly calls: unknown[][] = [];
  constructor() {
    super(new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }), 'q');
  }
  private record(name: string, args: unknown[]): Promise<never> {
    this.calls.push([name, ...args]);
    return Promise.resolve({ done: name } as never);
  }
  override pause(...args: unknown[]) { return this.record('pause', args); }
  override resume(...args: unknown[]) { return this.record('resume', args); }
  override kill(...args: unknown[]) { return this.record('kill', args); }
  override intervene(...args: unknown[]) { return this.record('intervene', args); }
  override setBudget(...args: unknown[]) { return this.record('setBudget', args); }
  override setApprovalRules(...args: unknown[]) { return this.record('setApprovalRules', args); }
  override decide(...args: unknown[]) { return this.record('decide', args); }
  override answer(...args: unknown[]) { return this.record('answer', args); }
  override sendMessage(...args: unknown[]) { return this.record('sendMessage', args); }
  override closeSession(...args: unknown[]) { return this.record('closeSession', args); }
}

/** A valid payload of each operation, and the client call it must become. */
const examples: Record<string, { body: object; call: unknown[] }> = {
  pause: { body: { reason: 'lunch' }, call: ['pause', 'run-1', { reason: 'lunch', timeoutMs: 30000 }] },
  resume: { body: { reason: 'back' }, call: ['resume', 'run-1', 'back'] },
  kill: { body: {}, call: ['kill', 'run-1', { reason: 'killed by operator' }] },
  intervene: { body: { kind: 'block_tool', name: 'rm' }, call: ['intervene', 'run-1', { kind: 'block_tool', name: 'rm', reason: 'blocked by operator' }] },
  setBudget: { body: { maxToolCalls: 5 }, call: ['setBudget', 'run-1', { maxToolCalls: 5 }] },
  setApprovalRules: { body: { version: 'v1', rules: [{ id: 'r', effect: 'allow', tools: ['echo'] }] }, call: ['setApprovalRules', 'run-1', { version: 'v1', rules: [{ id: 'r', effect: 'allow', tools: ['echo'] }] }] },
  decide: { body: { toolCallId: 'c1', decision: 'approve' }, call: ['decide', 'run-1', expect.objectContaining({ toolCallId: 'c1', decision: 'approve', by: 'olivia' })] },
  answer: { body: { kind: 'clarification', itemId: 'q1', answer: 'yes' }, call: ['answer', 'run-1', { kind: 'clarification', itemId: 'q1', answer: 'yes' }] },
};

const adminToken = 'admin-token-0123456789';
const operatorToken = 'operator-token-0123456789';
const viewerToken = 'viewer-token-0123456789';
const auth: AuthConfig = {
  localDev: false,
  tokens: [
    { name: 'ada', role: 'admin', token: adminToken },
    { name: 'olivia', role: 'operator', token: operatorToken },
    { name: 'vera', role: 'viewer', token: viewerToken },
  ],
};
const ada: Principal = { name: 'ada', role: 'admin' };
const olivia: Principal = { name: 'olivia', role: 'operator' };

let agents: RecordingAgents;
let server: AgentServer;
beforeAll(async () => {
  agents = new RecordingAgents();
  server = await startAgentServer({ agents, auth, corsOrigins: [] });
});
afterAll(() => server.close());

describe('one table of run operations', () => {
  it("derives every operation from the protocol's table: the same payload schema, signal and update", () => {
    expect(runOperations.map((op) => op.name).sort()).toEqual(Object.keys(runOperationMessages).sort());
    for (const op of runOperations) {
      const messages = runOperationMessages[op.name];
      expect(op.signal).toBe(messages.signal);
      expect(op.update).toBe(messages.update);
      // The HTTP body is the public (lazy) schema of the very builder the workflow parses with.
      expect((op.body as z.ZodLazy).unwrap()).toBe(messages.payload());
    }
  });

  it("names each operation after the run's signal, and its update is a definition of the workflow", () => {
    const signals = Object.values(definitions).filter((d) => (d as { type?: string }).type === 'signal').map((d) => (d as { name: string }).name);
    const updates = Object.values(definitions).filter((d) => (d as { type?: string }).type === 'update').map((d) => (d as { name: string }).name);
    for (const op of runOperations) {
      expect(op.signal.name).toBe(op.name);
      expect(signals).toContain(op.name);
      expect(updates).toContain(op.update.name);
    }
    // Every operator-facing signal has its operation (the model activity's early-call signal and a
    // sub-agent run's report of its waits to its parent are not an operator's).
    expect(signals.filter((s) => s !== 'earlyToolCall' && s !== 'childWaiting').sort()).toEqual(runOperations.map((op) => op.name).sort());
    expect(Object.keys(examples).sort()).toEqual(runOperations.map((op) => op.name).sort());
  });

  it.each(runOperations.map((op) => [op.name, op] as const))('%s: the HTTP route and the WebSocket message make the same client call', async (name, op) => {
    const example = examples[name]!;
    agents.calls.length = 0;
    const admin = op.access === 'admin';
    const res = await fetch(`${server.url}/api/runs/run-1/${op.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin ? adminToken : operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(example.body),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: name });
    const ws = await handleControlMessage(agents, 'run-1', admin ? ada : olivia, JSON.stringify({ id: 7, type: name, ...example.body }));
    expect(ws).toEqual({ type: 'result', id: 7, ok: true, body: { done: name } });
    expect(agents.calls).toEqual([example.call, example.call]);
  });

  it.each(runOperations.map((op) => [op.name, op] as const))('%s: both doors refuse a bad payload and a role below the operation, and call nothing', async (name, op) => {
    agents.calls.length = 0;
    const bad = { maxToolCalls: 'many', kind: 'nope', toolCallId: 7, itemId: 7, reason: 7, timeoutMs: -1 };
    const admin = op.access === 'admin';
    const res = await fetch(`${server.url}/api/runs/run-1/${op.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin ? adminToken : operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(bad),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_input' } });
    const ws = await handleControlMessage(agents, 'run-1', admin ? ada : olivia, JSON.stringify({ id: 1, type: name, ...bad }));
    expect(ws).toMatchObject({ ok: false, body: { error: { type: 'invalid_input' } } });
    const asViewer = await handleControlMessage(agents, 'run-1', { name: 'vera', role: 'viewer' }, JSON.stringify({ id: 2, type: name, ...examples[name]!.body }));
    expect(asViewer).toMatchObject({ ok: false, body: { error: { type: 'forbidden' } } });
    expect(agents.calls).toEqual([]);
  });

  it.each(runOperations.map((op) => [op.name, op] as const))('%s: both doors refuse a payload nested 100,000 levels deep with 400 naming the field, and call nothing', async (name, op) => {
    agents.calls.length = 0;
    // Written by hand: JSON.stringify itself overflows the stack on such a value.
    const deep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
    const admin = op.access === 'admin';
    const res = await fetch(`${server.url}/api/runs/run-1/${op.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin ? adminToken : operatorToken}`, 'content-type': 'application/json' },
      body: `{"args":${deep}}`,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { type: 'invalid_input', message: 'body.args: nested deeper than 1000 levels' } });
    const ws = await handleControlMessage(agents, 'run-1', admin ? ada : olivia, `{"id":1,"type":"${name}","args":${deep}}`);
    expect(ws).toMatchObject({ ok: false, body: { error: { type: 'invalid_input', message: 'args: nested deeper than 1000 levels' } } });
    expect(agents.calls).toEqual([]);
  });
});

/** The OpenAPI document the server serves, read over HTTP. */
async function servedDocument(): Promise<{ paths: Record<string, { post?: { 'x-required-role'?: string; tags?: string[]; requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } } }> }> {
  return (await (await fetch(`${server.url}/openapi.json`, { headers: { authorization: `Bearer ${viewerToken}` } })).json()) as never;
}

/** A signal and an accepted update of a recorded history, as Temporal records them. */
function recordedMessages(signalName: string, updateName: string, payload: unknown): object[] {
  const payloads = { payloads: [defaultPayloadConverter.toPayload(payload)] };
  return [
    { workflowExecutionSignaledEventAttributes: { signalName, input: payloads } },
    { workflowExecutionUpdateAcceptedEventAttributes: { acceptedRequest: { input: { name: updateName, args: payloads } } } },
  ];
}

describe('what derives from the rows of the operations tables', () => {
  it('gives every run operation its route, role and schemas, its WebSocket message, and its tree route exactly when its row has a tree field', async () => {
    const document = await servedDocument();
    for (const name of runOperationNames) {
      const row = runOperationMessages[name];
      const op = runOperationsByName[name];
      expect([op.name, op.signal, op.update]).toEqual([name, row.signal, row.update]);
      expect((op.body as z.ZodLazy).unwrap()).toBe(row.payload());
      expect((op.response as z.ZodLazy).unwrap()).toBe(row.answer());
      expect(document.paths[`/api/runs/{id}/${op.path}`]?.post?.['x-required-role']).toBe(op.access);
      expect(controlEnvelopeSchema.safeParse({ type: name }).success).toBe(true);
      const tree = document.paths[`/api/runs/{id}/tree/${op.path}`]?.post;
      const treeField: string | undefined = 'tree' in row ? row.tree : undefined;
      if (treeField === undefined) expect(tree).toBeUndefined();
      else expect(Object.keys(tree?.requestBody?.content['application/json']?.schema.properties ?? {})).toEqual(['path', treeField]);
    }
    expect(runOperationNames.filter((name) => 'tree' in runOperationMessages[name]).sort()).toEqual(['answer', 'decide']);
  });

  it('gives every session operation its route from its row: the session id, the payload and the client call', async () => {
    expect(sessionOperations.map((op) => op.name).sort()).toEqual(Object.keys(sessionOperationMessages).sort());
    agents.calls.length = 0;
    const post = (path: string, body: object = {}) =>
      fetch(`${server.url}/api/sessions/chat-1/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${operatorToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const sent = await post('messages', { content: 'hello' });
    expect([sent.status, await sent.json()]).toEqual([200, { done: 'sendMessage' }]);
    const refused = await post('messages', { content: '' });
    expect([refused.status, await refused.json()]).toEqual([400, { error: { type: 'invalid_input', message: 'body.content: the message must not be empty' } }]);
    const closed = await post('close');
    expect([closed.status, await closed.text()]).toEqual([204, '']);
    expect(agents.calls).toEqual([
      ['sendMessage', 'chat-1', { content: 'hello' }],
      ['closeSession', 'chat-1'],
    ]);
  });

  it("takes every session operation as a message of the session's WebSocket, from its row: the same client call, and errors that name the session and the field", async () => {
    agents.calls.length = 0;
    const message = (body: object) => handleControlMessage(agents, 'chat-1', olivia, JSON.stringify(body), sessionOperations, 'session chat-1');
    expect(await message({ id: 1, type: 'sendMessage', content: 'hello', messageId: 'm-7', whenBusy: 'steer' })).toEqual({ type: 'result', id: 1, ok: true, body: { done: 'sendMessage' } });
    expect(await message({ id: 2, type: 'close' })).toEqual({ type: 'result', id: 2, ok: true, body: { done: 'closeSession' } });
    expect(await message({ id: 3, type: 'sendMessage', content: '' })).toEqual({ type: 'result', id: 3, ok: false, body: { error: { type: 'invalid_input', message: 'session chat-1: message.content: the message must not be empty' } } });
    expect(await message({ id: 4, type: 'editQueue', action: 'drop' })).toMatchObject({ ok: false, body: { error: { type: 'invalid_input', message: 'session chat-1: message.messageId: Invalid input: expected string, received undefined' } } });
    expect(await message({ id: 5, type: 'pause' })).toMatchObject({ ok: false, body: { error: { type: 'invalid_input', message: expect.stringMatching(/^session chat-1: message\.type: .*"sendMessage"/) } } });
    expect(agents.calls).toEqual([
      ['sendMessage', 'chat-1', { content: 'hello', messageId: 'm-7', whenBusy: 'steer' }],
      ['closeSession', 'chat-1'],
    ]);
  });

  it("recognises every run operation in a recorded history by its signal's and its update's names, as eval's part of its row says", () => {
    const payload = { kind: 'block_tool', name: 'rm', decision: 'approve', toolCallId: 'c1', itemId: 'q1' };
    const kept: Record<string, number> = {};
    for (const name of runOperationNames) {
      const { signal, update } = runOperationMessages[name];
      const inputs = humanInputs(recordedMessages(signal.name, update.name, payload));
      kept[name] = inputs.decisions.length + inputs.answers.length + inputs.interventions.length;
    }
    // Both messages of each operation eval reports; pause and resume change no decision a candidate makes.
    expect(kept).toEqual({ answer: 2, decide: 2, pause: 0, resume: 0, kill: 2, intervene: 2, setBudget: 2, setApprovalRules: 2 });
    expect(humanInputs(recordedMessages('earlyToolCall', 'waitForEvents', payload))).toEqual({ decisions: [], answers: [], interventions: [] });
  });

  it('derives a new row everywhere: its route, its tree route, its place in the OpenAPI document and its WebSocket message', async () => {
    const nudgeSchema = () => z.object({ hint: z.string().min(1) });
    const extended = {
      ...runOperationMessages,
      nudge: operation({ kind: 'control', payload: nudgeSchema, answer: pauseResultSchema, signal: defineSignal<[unknown]>('nudge'), update: defineUpdate<z.infer<ReturnType<typeof pauseResultSchema>>, [unknown]>('nudgeRun'), tree: 'nudge' }),
    };
    const nudged: unknown[] = [];
    const http: HttpParts<typeof extended> = {
      ...runOperationsHttp,
      nudge: {
        path: 'nudges',
        access: 'operator',
        summary: 'Nudge a run',
        perform: (_agents, id, body) => Promise.resolve(nudged.push([id, body])),
        tree: { summary: 'Nudge a sub-agent run' },
      },
    };
    const operations = operationsOf(extended, http);
    const routes = [...operationRoutes(agents, '/api/runs', operations), ...treeOperationRoutes(agents, operations)];
    const paths = (openApiDocument(routes, { title: 't', version: '0' }) as { paths: Record<string, { post: { tags: string[]; 'x-required-role': string } }> }).paths;
    expect(paths['/api/runs/{id}/nudges']?.post).toMatchObject({ tags: ['control'], 'x-required-role': 'operator' });
    expect(paths['/api/runs/{id}/tree/nudges']?.post).toMatchObject({ summary: 'Nudge a sub-agent run', 'x-required-role': 'operator' });
    const answer = await handleControlMessage(agents, 'run-1', olivia, JSON.stringify({ id: 3, type: 'nudge', hint: 'look again' }), operations);
    expect(answer).toEqual({ type: 'result', id: 3, ok: true, body: 1 });
    expect(nudged).toEqual([['run-1', { hint: 'look again' }]]);
  });

  it(`keeps the guide's table of operations the tables' (regenerate it with \`npx tsx scripts/operations-doc.ts\`)`, () => {
    expect(operationsDocCommand).toBe('npx tsx scripts/operations-doc.ts');
    expect(documentedOperationsTable()).toBe(renderOperationsTable());
  });
});

/**
 * Type tests: what must not compile. `npm run check` compiles this file; each `@ts-expect-error`
 * fails it if the line below it compiles.
 */
export function operationsTypeTests(): unknown[] {
  const partsWithoutAnswer: Omit<typeof runOperationsHttp, 'answer'> = runOperationsHttp;
  // @ts-expect-error a row of the protocol's table without its HTTP part is a compile error
  const missingRow: HttpParts<typeof runOperationMessages> = partsWithoutAnswer;
  // @ts-expect-error a row with a tree field needs its tree route's summary
  const missingTree: HttpParts<typeof runOperationMessages> = { ...runOperationsHttp, decide: { ...runOperationsHttp.decide, tree: undefined } };
  const costUpdate: UpdateDefinition<CostReport, [unknown]> = defineUpdate<CostReport, [unknown]>('pauseRunWrongly');
  // @ts-expect-error a row whose update answers something else than its answer's schema parses
  const mismatched = operation({ kind: 'control', payload: pauseRequestSchema, answer: pauseResultSchema, signal: defineSignal<[unknown?]>('pauseWrongly'), update: costUpdate });
  return [missingRow, missingTree, mismatched];
}
