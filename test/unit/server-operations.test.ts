/**
 * Every operation on a run comes from one table (server/operations.ts): its HTTP route and its
 * WebSocket control message take the same payload, need the same role and call the same client
 * method, and its name is the run's signal of that operation. Against the real HTTP server, with
 * a client whose operations are recorded instead of sent (no Temporal server here).
 */
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../../client/agent-client';
import * as definitions from '../../contracts/definitions';
import { startAgentServer, type AgentServer } from '../../server';
import type { AuthConfig, Principal } from '../../server/auth';
import { handleControlMessage } from '../../server/live/control-messages';
import { runOperations } from '../../server/operations';
import { runOperationMessages } from '../../contracts/operations';
import type { z } from 'zod';

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
  override decide(...args: unknown[]) { return this.record('decide', args); }
  override answer(...args: unknown[]) { return this.record('answer', args); }
}

/** A valid payload of each operation, and the client call it must become. */
const examples: Record<string, { body: object; call: unknown[] }> = {
  pause: { body: { reason: 'lunch' }, call: ['pause', 'run-1', { reason: 'lunch', timeoutMs: 30000 }] },
  resume: { body: { reason: 'back' }, call: ['resume', 'run-1', 'back'] },
  kill: { body: {}, call: ['kill', 'run-1', { reason: 'killed by operator' }] },
  intervene: { body: { kind: 'block_tool', name: 'rm' }, call: ['intervene', 'run-1', { kind: 'block_tool', name: 'rm', reason: 'blocked by operator' }] },
  setBudget: { body: { maxToolCalls: 5 }, call: ['setBudget', 'run-1', { maxToolCalls: 5 }] },
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
