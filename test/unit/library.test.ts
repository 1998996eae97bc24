import { createServer, type Server } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import { z } from 'zod';
import { createActivities } from '../../activities';
import { sessionStateMaxBytes } from '../../contracts';
import { createAgentRegistry, createScriptedPlanner, defineAgent, defineTool, type ToolDefinition } from 'durable-agents/workflow';
import { implementTool } from 'durable-agents/worker';
import { devServerPort, devServerPorts, PortInUseError, startDevServer, withoutPortFlag } from 'durable-agents/testing';
import { freeLoopbackPort } from '../../testing/dev-server-port';

const lookup = defineTool({ name: 'lookup', description: 'Look up', input: z.object({ key: z.string() }) });
const otherLookup = defineTool({ name: 'lookup', description: 'Look up elsewhere', input: z.object({ id: z.number() }) });
const note = defineTool({ name: 'note', description: 'Note', input: z.object({}) });
const agent = (name: string, tools: readonly ToolDefinition[] = [lookup]) => defineAgent({ name, description: name, tools, createPlanner: createScriptedPlanner });

describe('defineAgent and the bundle registry', () => {
  it('finds agents by name and lists them sorted', () => {
    const registry = createAgentRegistry([agent('zeta'), agent('alpha')]);
    expect(registry.names()).toEqual(['alpha', 'zeta']);
    expect(registry.find('alpha')?.name).toBe('alpha');
    expect(registry.find('beta')).toBeUndefined();
  });

  it('refuses two agents of one name, duplicate tools and names that would make activity types ambiguous', () => {
    expect(() => createAgentRegistry([agent('a'), agent('a')])).toThrow('two agents are named a');
    expect(() => agent('a', [lookup, otherLookup])).toThrow('agent a: duplicate tool lookup');
    expect(() => agent('team/a')).toThrow(/invalid agent name "team\/a"/);
    expect(() => agent('a.b')).toThrow(/invalid agent name/);
  });

  it('two registries with different agents coexist (no global catalogue)', () => {
    const one = createAgentRegistry([agent('one')]);
    const two = createAgentRegistry([agent('two')]);
    expect([one.names(), two.names()]).toEqual([['one'], ['two']]);
  });
});

describe('createActivities: one activity per agent tool', () => {
  const impl = implementTool(lookup, () => 'a');
  const otherImpl = implementTool(otherLookup, () => 'b');

  it('registers <agent>/<tool> only: the bare tool names of 0.1.0 runs are outside the support window', () => {
    const activities = createActivities({ agents: [agent('a'), agent('b', [otherLookup, note])], tools: [impl, otherImpl, implementTool(note, () => null)] });
    expect(Object.keys(activities).sort()).toEqual(['a/lookup', 'b/lookup', 'b/note']);
  });

  it('matches a tool by its definition, so two agents\' same-named tools keep their own implementations', async () => {
    const activities = createActivities({ agents: [agent('a'), agent('b', [otherLookup])], tools: [otherImpl, impl] });
    const input = (name: string, args: unknown) => ({
      runId: 'r', agent: name, idempotencyKey: 'w/c', resultByteBudget: 10_000, sessionState: {},
      request: { toolCallId: 'c', name: 'lookup', args, turn: 0 },
    });
    const env = new MockActivityEnvironment();
    await expect(env.run(activities['a/lookup']!, input('a', { key: 'k' }))).resolves.toMatchObject({ result: 'a' });
    await expect(env.run(activities['b/lookup']!, input('b', { id: 1 }))).resolves.toMatchObject({ result: 'b' });
  });

  it('a compact input (0.6.0) gives the tool the same call, run, agent, key and session as the full one', async () => {
    const seen: unknown[] = [];
    const echo = implementTool(note, (_args, ctx) => {
      seen.push({ toolCallId: ctx.toolCallId, turn: ctx.turn, runId: ctx.runId, agent: ctx.agent, idempotencyKey: ctx.idempotencyKey, watchlist: ctx.session.get('watchlist') ?? null });
      return ctx.turn === 0 ? 'x'.repeat(70 * 1024) : { ok: true };
    });
    const activities = createActivities({ agents: [agent('a', [note])], tools: [echo] });
    const env = new MockActivityEnvironment({ activityType: 'a/note', activityId: 'turn-0/call_0_0', workflowExecution: { workflowId: 'wf', runId: 'run-1' } });
    const request = { toolCallId: 'call_0_0', name: 'note', args: {}, turn: 0 };
    const full = await env.run(activities['a/note']!, { runId: 'run-1', agent: 'a', idempotencyKey: 'wf/e2/call_0_0', resultByteBudget: 64 * 1024, sessionState: {}, request });
    const compact = await env.run(activities['a/note']!, { request: { args: {} }, epoch: 'e2' });
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[1]).toEqual({ toolCallId: 'call_0_0', turn: 0, runId: 'run-1', agent: 'a', idempotencyKey: 'wf/e2/call_0_0', watchlist: null });
    // The default budget applies when a compact input leaves it out; the answer leaves out attempt 1.
    expect(full).toMatchObject({ resultOmitted: true, resultBytes: 70 * 1024 + 2, attempt: 1 });
    expect(compact).toEqual({ resultOmitted: true, resultOmittedReason: 'workflow_budget', resultBytes: 70 * 1024 + 2, resultPreview: expect.any(String), endedAtMs: expect.any(Number) });

    // Without an epoch, the epoch is the execution's run id (a run that has not continued as new);
    // an empty one (a run without a log epoch) makes the key workflow id + call id. Session state comes when there is some.
    const later = new MockActivityEnvironment({ activityType: 'a/note', activityId: 'turn-3/call_3_1', workflowExecution: { workflowId: 'wf', runId: 'run-2' } });
    expect(await later.run(activities['a/note']!, { request: { args: {} }, sessionState: { watchlist: ['AAPL'] } })).toEqual({ result: { ok: true }, endedAtMs: expect.any(Number) });
    expect(seen[2]).toEqual({ toolCallId: 'call_3_1', turn: 3, runId: 'run-2', agent: 'a', idempotencyKey: 'wf/run-2/call_3_1', watchlist: ['AAPL'] });
    await later.run(activities['a/note']!, { request: { args: {} }, epoch: '' });
    expect(seen[3]).toMatchObject({ idempotencyKey: 'wf/call_3_1' });

    // A compact request needs an activity id that names the call.
    const unnamed = new MockActivityEnvironment({ activityType: 'a/note', activityId: '7', workflowExecution: { workflowId: 'wf', runId: 'run-2' } });
    await expect(unnamed.run(activities['a/note']!, { request: { args: {} } })).rejects.toThrow(/activity id "7" is not turn-<N>\/<call id>/);
  });

  it('a tool that would grow the session state past its limit fails, naming the sizes', async () => {
    const grow = implementTool(note, (_args, ctx) => {
      ctx.session.set('big', 'x'.repeat(sessionStateMaxBytes));
      return null;
    });
    const activities = createActivities({ agents: [agent('a', [note])], tools: [grow] });
    const input = { runId: 'r', agent: 'a', idempotencyKey: 'w/c', resultByteBudget: 10_000, sessionState: { small: 1 }, request: { toolCallId: 'c', name: 'note', args: {}, turn: 0 } };
    await expect(new MockActivityEnvironment().run(activities['a/note']!, input)).rejects.toMatchObject({
      type: 'session_state_too_large',
      nonRetryable: true,
      message: expect.stringContaining(`over its ${sessionStateMaxBytes}-byte limit`),
    });
  });

  it('a tool that reads a session key it did not declare fails, naming the key', async () => {
    const reader = implementTool(note, (_args, ctx) => ctx.session.get('secret') ?? null);
    const activities = createActivities({ agents: [agent('a', [note])], tools: [reader] });
    const input = { runId: 'r', agent: 'a', idempotencyKey: 'w/c', resultByteBudget: 10_000, sessionState: {}, sessionKeys: ['watchlist'], request: { toolCallId: 'c', name: 'note', args: {}, turn: 0 } };
    await expect(new MockActivityEnvironment().run(activities['a/note']!, input)).rejects.toMatchObject({
      type: 'undeclared_session_key',
      message: 'note read session key "secret" but declares only ["watchlist"] in sessionKeys',
    });
  });

  it('refuses an agent whose tool has no implementation, naming both', () => {
    expect(() => createActivities({ agents: [agent('a', [lookup, note])], tools: [impl] })).toThrow('agent a uses tool note but no implementation was given');
  });

  it('refuses a tool that takes the name of a runtime activity', () => {
    const callModel = defineTool({ name: 'callModelX', description: 'x', input: z.object({}) });
    expect(() => createActivities({ agents: [agent('a', [callModel])], tools: [implementTool(callModel, () => null)], runtime: { callModelX: async () => null } })).toThrow(
      'tool name callModelX is reserved',
    );
  });
});

describe('dev server ports', () => {
  it('takes --port, else the port of TEMPORAL_ADDRESS, else 7233; bad values are named', () => {
    expect(devServerPort(['--port', '7300'], { TEMPORAL_ADDRESS: '127.0.0.1:9999' })).toBe(7300);
    expect(devServerPort([], { TEMPORAL_ADDRESS: 'localhost:7400' })).toBe(7400);
    expect(devServerPort([], {})).toBe(7233);
    expect(() => devServerPort(['--port', 'x'], {})).toThrow('--port: expected a port number (1-65535), got "x"');
    expect(() => devServerPort(['--port'], {})).toThrow(/--port: expected a port number/);
    expect(withoutPortFlag(['--port', '7300', 'Add', 'AMD'])).toEqual(['Add', 'AMD']);
  });

  it('pins the Web UI, HTTP API and metrics ports by flag; bad values are named, and the flags are not part of the rest', () => {
    const argv = ['--ui-port', '9001', 'Add', '--temporal-http-port', '9002', 'AMD', '--temporal-metrics-port', '9003', '--port', '7300'];
    expect(devServerPorts(argv, {})).toEqual({ port: 7300, uiPort: 9001, httpPort: 9002, metricsPort: 9003 });
    expect(devServerPorts([], {})).toEqual({ port: 7233 });
    expect(withoutPortFlag(argv)).toEqual(['Add', 'AMD']);
    expect(() => devServerPorts(['--temporal-metrics-port', '70000'], {})).toThrow('--temporal-metrics-port: expected a port number (1-65535), got "70000"');
    expect(() => devServerPorts(['--ui-port'], {})).toThrow('--ui-port: expected a port number (1-65535), got ""');
  });

  it('a port taken by another program is reported, never silently reused', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const started = startDevServer({ port, uiPort: port + 1, dbFile: null, log: () => {} });
      await expect(started).rejects.toBeInstanceOf(PortInUseError);
      await expect(started).rejects.toThrow(`port ${port} on 127.0.0.1, wanted for the frontend (port, --port), is taken by another program`);
    } finally {
      server.close();
    }
  });

  it('a pinned HTTP API or metrics port taken is named before anything starts', async () => {
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const taken = (server.address() as { port: number }).port;
    const [port, uiPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
    try {
      for (const [option, wanted] of [['httpPort', 'the HTTP API (httpPort, --temporal-http-port)'], ['metricsPort', 'the metrics (metricsPort, --temporal-metrics-port)']] as const) {
        const started = startDevServer({ port, uiPort, [option]: taken, dbFile: null, log: () => {} });
        // Stopped should it start at all (code that does not know the option).
        await started.then((s) => s.stop(), () => undefined);
        await expect(started).rejects.toMatchObject({ name: 'PortInUseError', port: taken, role: option === 'httpPort' ? 'http' : 'metrics' });
        await expect(started).rejects.toThrow(`port ${taken} on 127.0.0.1, wanted for ${wanted}, is taken by another program; pick another port or stop that program`);
      }
    } finally {
      server.close();
    }
  });
});
