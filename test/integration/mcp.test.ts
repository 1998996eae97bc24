/**
 * MCP toolsets against real MCP servers: the official reference server ("everything") over stdio
 * and over streamable HTTP, and a small SDK-built server whose tool list changes, each run by a
 * real worker through the pool of DurableAgentsPlugin.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import OpenAI from 'openai';
import { callTools, FakeOpenAIServer, say, toolCall } from 'durable-agents/testing';
import { AgentClient } from 'durable-agents/client';
import { createAgentWorker, implementTool, replayHistoryJson, type McpServerConfig } from 'durable-agents/worker';
import type { RunInput } from 'durable-agents/client';
import type { RunEvent } from '../../contracts';
import { noteTool } from '../support/mcp/agents';
import { eventSummary } from '../support/histories';
import { callStep, finalStep, observations } from '../support/scripts';
import { bundleOnce } from '../support/test-bundle';
import { createTestEnv, uniqueTaskQueue } from '../support/test-env';
import { waitFor } from '../support/wait';
import { freeLoopbackPort } from '../../testing/dev-server-port';
import type { EvaluationReport } from '../../testing/eval';
import { agentModuleForTests, runAgentctl } from '../support/agentctl-eval';
import { testTempDir } from '../support/temp-dir';

const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const changingServer = require.resolve('../support/mcp/changing-server.mjs');
const notes = implementTool(noteTool, ({ text }) => ({ noted: text }));

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let httpServer: { process: ChildProcess; port: number } | undefined;
let fake: FakeOpenAIServer;


/** Starts the reference server's streamable HTTP transport on `port` and waits until it listens. */
async function startHttpServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [everythingEntry, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the HTTP MCP server exited (${code}): ${text}`)));
  });
  return child;
}

beforeAll(async () => {
  env = await createTestEnv();
  bundle = await bundleOnce(require.resolve('../support/mcp/workflows'));
  const port = await freeLoopbackPort();
  httpServer = { port, process: await startHttpServer(port) };
  fake = await FakeOpenAIServer.start();
});
afterAll(async () => {
  httpServer?.process.kill();
  await fake?.close();
  await env?.teardown();
});

function servers(): Record<string, McpServerConfig> {
  return {
    'everything-stdio': { transport: 'stdio', command: process.execPath, args: [everythingEntry, 'stdio'], stderr: 'ignore' },
    'everything-http': { transport: 'http', url: `http://127.0.0.1:${httpServer?.port}/mcp` },
    changing: { transport: 'stdio', command: process.execPath, args: [changingServer] },
  };
}

async function mcpWorker(prefix: string, serverOverrides: Record<string, McpServerConfig> = {}) {
  const taskQueue = uniqueTaskQueue(prefix);
  const worker = await createAgentWorker({
    config: { address: env.address, namespace: env.namespace ?? 'default', taskQueue },
    connection: env.nativeConnection,
    workflowBundle: bundle,
    agents: (await import('../support/mcp/agents')).mcpAgents,
    tools: [notes],
    openai: new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 }),
    mcpServers: { ...servers(), ...serverOverrides },
  });
  return { worker, agents: new AgentClient(env.client, taskQueue, false) };
}

function run(agent: string, plannerOptions: RunInput['plannerOptions']): RunInput {
  return { agent, messages: [{ role: 'user', content: 'use the MCP tools' }], plannerOptions };
}

async function allEvents(agents: AgentClient, workflowId: string): Promise<RunEvent[]> {
  return (await agents.events(workflowId, 0, 1000)).events;
}

/** Waits for the first event of a type (and matching `where`). */
async function eventOf<T extends RunEvent['type']>(agents: AgentClient, workflowId: string, type: T, where: (e: Extract<RunEvent, { type: T }>) => boolean = () => true) {
  return waitFor(`event ${type}`, async () => (await allEvents(agents, workflowId)).find((e): e is Extract<RunEvent, { type: T }> => e.type === type && where(e as Extract<RunEvent, { type: T }>)));
}

const keptTools = ['echo', 'get-annotated-message', 'get-resource-links', 'get-resource-reference', 'get-structured-content', 'get-sum', 'gzip-file-as-resource', 'trigger-long-running-operation'];

describe.each([
  ['stdio', 'mcp-stdio', 'everything-stdio'],
  ['streamable HTTP', 'mcp-http', 'everything-http'],
])('MCP toolset over %s (the reference server)', (_transport, agent, server) => {
  it('lists the filtered tools as a versioned snapshot, mixes MCP calls with a local tool, waits for approval of get-sum, and answers server errors and unknown tools as tool errors', async () => {
    const { worker, agents } = await mcpWorker(`mcp-${agent}`);
    await worker.runUntil(async () => {
      const { workflowId } = await agents.start(
        run(agent, {
          steps: [
            callStep({ name: 'note', args: { text: 'start' } }, { name: 'echo', args: { message: 'hello MCP' } }, { name: 'get-sum', args: { a: 2, b: 3 } }),
            callStep({ name: 'gzip-file-as-resource', args: { data: 'ftp://example.invalid/file.txt' } }, { name: 'get-env', args: {} }, { name: 'get-sum', args: { a: 'two' } }),
            finalStep(),
          ],
        }),
      );
      const approval = await eventOf(agents, workflowId, 'approval_requested');
      expect(approval).toMatchObject({ name: 'get-sum', args: { a: 2, b: 3 } });
      // An operator asks for a fresh list while the call waits; it is fetched before the next planner turn.
      await agents.intervene(workflowId, { kind: 'refresh_tools', toolset: 'everything' });
      await agents.decide(workflowId, { decision: 'approve', toolCallId: approval.toolCallId, by: 'tester' });
      const result = await agents.result(workflowId);
      expect(result.status).toBe('completed');
      // The snapshot comes from history: the run replays with no MCP server involved.
      expect(await replayHistoryJson(JSON.parse(await agents.exportHistory(workflowId)), { code: bundle.code })).toMatchObject({ ok: true });
      const seen = observations(result);
      expect(seen.map((o) => [o.name, o.status])).toEqual([
        ['note', 'ok'],
        ['echo', 'ok'],
        ['get-sum', 'ok'],
        ['gzip-file-as-resource', 'error'],
        ['get-env', 'error'],
        ['get-sum', 'error'],
      ]);
      expect(seen[0]?.result).toEqual({ noted: 'start' });
      expect(seen[1]?.result).toEqual({ content: [{ type: 'text', text: 'Echo: hello MCP' }] });
      expect(seen[2]?.result).toEqual({ content: [{ type: 'text', text: 'The sum of 2 and 3 is 5.' }] });
      // The server's own error (isError) reaches the planner as a tool error with its text.
      expect(seen[3]).toMatchObject({ errorType: 'tool_failed' });
      expect(seen[3]?.errorMessage).toContain('Unsupported URL protocol');
      // Excluded by the filter: not in the snapshot, refused before any activity.
      expect(seen[4]).toMatchObject({ errorType: 'tool_unknown' });
      // The converted JSON Schema refuses bad arguments in the workflow, as for local tools.
      expect(seen[5]).toMatchObject({ errorType: 'invalid_arguments' });

      const events = await allEvents(agents, workflowId);
      const updates = events.filter((e): e is Extract<RunEvent, { type: 'tools_updated' }> => e.type === 'tools_updated');
      expect(updates.map((u) => u.reason)).toEqual(['initial', 'requested']);
      expect(updates[0]).toMatchObject({ toolset: 'everything', server, version: expect.stringMatching(/^[0-9a-f]{16}$/) });
      expect([...(updates[0]?.tools ?? [])].sort()).toEqual(keptTools);
      expect(updates[1]?.version).toBe(updates[0]?.version);
      expect(events.find((e) => e.type === 'approval_decided')).toMatchObject({ decision: 'approve', by: 'tester' });
      const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
      const scheduled = (history.events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : []));
      expect(scheduled).toEqual(['mcp.listTools', `${agent}/note`, 'mcp.callTool', 'mcp.callTool', 'mcp.listTools', 'mcp.callTool']);
      // The MCP activities share their types, so each carries a summary naming its server and tool;
      // the agent's own tool is named by its type and id alone.
      const summaries = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes).map(eventSummary);
      expect(summaries).toEqual([
        expect.stringMatching(/^turn 0: list tools of everything \(MCP /),
        undefined,
        expect.stringMatching(/^turn \d+: echo \(MCP .+\/echo\)$/),
        expect.stringMatching(/^turn \d+: get-sum \(MCP .+\/get-sum\)$/),
        expect.stringMatching(/ \(MCP /),
        expect.stringMatching(/^turn \d+: gzip-file-as-resource \(MCP /),
      ]);
    });
  });
});

describe('MCP tool lists that change, and servers that die', () => {
  it('refreshes the snapshot before the next planner turn when a call reports that the server\'s list changed (notifications/tools/list_changed); the server receives each call\'s idempotency key', async () => {
    const { worker, agents } = await mcpWorker('mcp-changing');
    await worker.runUntil(async () => {
      const { workflowId } = await agents.start(
        run('mcp-changing', {
          steps: [
            // ch_greet does not exist yet: refused; add_tool makes the server add it and announce the change.
            callStep({ name: 'ch_greet', args: {} }),
            callStep({ name: 'ch_add_tool', args: { name: 'greet' } }),
            callStep({ name: 'ch_greet', args: {} }, { name: 'ch_meta', args: {} }),
            finalStep(),
          ],
        }),
      );
      const result = await agents.result(workflowId);
      expect(observations(result).map((o) => [o.name, o.status, o.errorType ?? o.result])).toEqual([
        ['ch_greet', 'error', 'tool_unknown'],
        ['ch_add_tool', 'ok', { content: [{ type: 'text', text: 'added greet' }] }],
        ['ch_greet', 'ok', { content: [{ type: 'text', text: 'greet works' }] }],
        ['ch_meta', 'ok', { content: [{ type: 'text', text: expect.stringMatching(new RegExp(`^${workflowId}/.+/call_2_1$`)) }] }],
      ]);
      const updates = (await allEvents(agents, workflowId)).filter((e): e is Extract<RunEvent, { type: 'tools_updated' }> => e.type === 'tools_updated');
      expect(updates.map((u) => [u.reason, u.tools])).toEqual([
        ['initial', ['ch_add_tool', 'ch_meta']],
        ['list_changed', ['ch_add_tool', 'ch_meta', 'ch_greet']],
      ]);
      expect(updates[1]?.previousVersion).toBe(updates[0]?.version);
      expect(await replayHistoryJson(JSON.parse(await agents.exportHistory(workflowId)), { code: bundle.code })).toMatchObject({ ok: true });
      expect(updates[1]?.version).not.toBe(updates[0]?.version);
    });
  });

  it('the snapshot is carried across continue-as-new: later executions call MCP tools without listing again', async () => {
    const { worker, agents } = await mcpWorker('mcp-continue');
    await worker.runUntil(async () => {
      const echo = (message: string) => callStep({ name: 'echo', args: { message } });
      const { workflowId, runId: runIdOfStart } = await agents.start({
        ...run('mcp-stdio', { steps: [echo('one'), echo('two'), echo('three'), finalStep()] }),
        policy: { continueAsNewAfterEvents: 1 },
      });
      const result = await agents.result(workflowId);
      expect(observations(result).map((o) => o.result)).toEqual(['one', 'two', 'three'].map((m) => ({ content: [{ type: 'text', text: `Echo: ${m}` }] })));
      // Follow the chain of executions from the first one, by each one's continued-as-new event.
      const executions: string[][] = [];
      for (let runId: string | undefined = runIdOfStart; runId; ) {
        const history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
        const events = history.events ?? [];
        executions.push(events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name ?? ''] : [])));
        runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
      }
      // Every turn boundary continued as new; only the first execution listed the tools.
      expect(executions.length).toBeGreaterThan(1);
      expect(executions.flat().filter((t) => t === 'mcp.listTools')).toHaveLength(1);
      expect(executions.flat().filter((t) => t === 'mcp.callTool')).toHaveLength(3);
      expect((await allEvents(agents, workflowId)).filter((e) => e.type === 'tools_updated')).toHaveLength(1);
    });
  });

  it('a kill during a long MCP call cancels the request: the call is answered as cancelled and the run terminates', async () => {
    const { worker, agents } = await mcpWorker('mcp-kill-run');
    await worker.runUntil(async () => {
      const { workflowId } = await agents.start(
        run('mcp-stdio', { steps: [callStep({ name: 'trigger-long-running-operation', args: { duration: 20, steps: 20 } }), finalStep()] }),
      );
      const handle = env.client.workflow.getHandle(workflowId);
      await waitFor('progress of the long call', async () => {
        const pending = (await handle.describe()).raw.pendingActivities?.[0];
        return pending?.heartbeatDetails?.payloads?.length ? true : undefined;
      });
      await agents.kill(workflowId, { reason: 'enough' });
      const result = await agents.result(workflowId);
      expect(result.status).toBe('terminated');
      const terminated = (await allEvents(agents, workflowId)).find((e) => e.type === 'run_terminated');
      expect(terminated).toMatchObject({ reason: 'enough', cancelledCalls: ['call_0_0'] });
      const closed = ((await handle.fetchHistory()).events ?? []).filter((e) => e.activityTaskCanceledEventAttributes);
      expect(closed).toHaveLength(1);
    });
  });

  it('a stdio server killed during a long call: the attempt fails as mcp_unavailable, the retry starts the server again and the run completes', async () => {
    const { worker, agents } = await mcpWorker('mcp-kill-stdio');
    const plugin = (worker.options.plugins ?? []).find((p) => p.name === 'durable-agents') as { mcpPool?: { processId(server: string): Promise<number | undefined> } } | undefined;
    await worker.runUntil(async () => {
      const { workflowId } = await agents.start(
        run('mcp-stdio', { steps: [callStep({ name: 'trigger-long-running-operation', args: { duration: 3, steps: 3 } }), finalStep()] }),
      );
      const handle = env.client.workflow.getHandle(workflowId);
      // Mid-call: the server has reported progress (a heartbeat with details) and has not finished.
      await waitFor('progress of the long call', async () => {
        const pending = (await handle.describe()).raw.pendingActivities?.[0];
        return pending?.heartbeatDetails?.payloads?.length ? true : undefined;
      });
      const pid = await plugin?.mcpPool?.processId('everything-stdio');
      expect(pid).toEqual(expect.any(Number));
      process.kill(pid as number, 'SIGKILL');
      const result = await agents.result(workflowId);
      expect(result.status).toBe('completed');
      expect(observations(result)[0]).toMatchObject({ status: 'ok', result: { content: [{ type: 'text', text: 'Long running operation completed. Duration: 3 seconds, Steps: 3.' }] } });
      const started = ((await handle.fetchHistory()).events ?? []).flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes] : []));
      const retried = started.find((a) => a.attempt === 2);
      expect(retried?.lastFailure?.message).toMatch(/MCP server everything-stdio is unavailable \(the call of trigger-long-running-operation, attempt 1\)/);
      expect(retried?.lastFailure?.applicationFailureInfo?.type).toBe('mcp_unavailable');
      expect(await plugin?.mcpPool?.processId('everything-stdio')).not.toBe(pid);
    });
  });

  it('an HTTP server killed during a long call: the call ends as a tool error naming the server (no retry left), and the run goes on to its answer', async () => {
    const port = await freeLoopbackPort();
    const doomed = await startHttpServer(port);
    const { worker, agents } = await mcpWorker('mcp-kill-http', { 'everything-http': { transport: 'http', url: `http://127.0.0.1:${port}/mcp` } });
    await worker.runUntil(async () => {
      const { workflowId } = await agents.start(
        run('mcp-http', { steps: [callStep({ name: 'trigger-long-running-operation', args: { duration: 3, steps: 3 } }), finalStep()] }),
      );
      const handle = env.client.workflow.getHandle(workflowId);
      await waitFor('progress of the long call', async () => {
        const pending = (await handle.describe()).raw.pendingActivities?.[0];
        return pending?.heartbeatDetails?.payloads?.length ? true : undefined;
      });
      doomed.kill('SIGKILL');
      const result = await agents.result(workflowId);
      expect(result.status).toBe('completed');
      const [output] = observations(result);
      expect(output).toMatchObject({ name: 'trigger-long-running-operation', status: 'error', errorType: 'tool_failed', retryReason: 'tool_unavailable' });
      expect(output?.errorMessage).toContain('MCP server everything-http is unavailable');
      // The first attempt failed as soon as the stream broke (not at its timeout): the connection closed.
      const started = ((await handle.fetchHistory()).events ?? []).flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes] : []));
      expect(started.find((a) => a.attempt === 2)?.lastFailure?.message).toMatch(/everything-http is unavailable \(the call of trigger-long-running-operation, attempt 1\): MCP error -32000: Connection closed/);
    });
  });
});

describe('MCP tools and the LLM planner', () => {
  it('the model is offered the local tool and the MCP tools with the server\'s JSON Schemas, and its MCP calls run', async () => {
    const { worker, agents } = await mcpWorker('mcp-llm');
    fake.script(callTools(toolCall('echo', { message: 'from the model' }), toolCall('note', { text: 'noted' })), say('all done'));
    await worker.runUntil(async () => {
      const { workflowId } = await agents.start({ agent: 'mcp-llm', messages: [{ role: 'user', content: 'echo something' }] });
      const result = await agents.result(workflowId);
      expect(result).toMatchObject({ status: 'completed', final: { text: 'all done' } });
    });
    expect(fake.errors).toEqual([]);
    const [first, second] = fake.chatRequests.map((r) => r.body);
    const offered = first?.tools?.map((t) => t.function.name);
    expect(offered).toEqual(['note', 'echo', 'get-sum']);
    expect(first?.tools?.find((t) => t.function.name === 'get-sum')?.function).toMatchObject({
      description: 'Returns the sum of two numbers',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    });
    const toolMessages = (second?.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(toolMessages.some((c) => c.includes('Echo: from the model'))).toBe(true);
    expect(toolMessages.some((c) => c.includes('noted'))).toBe(true);
    fake.reset();
  });
});

describe('evaluating recorded runs of MCP tools (agentctl eval)', () => {
  const dir = testTempDir('mcp-eval-');

  it("with --mcp-config the candidate lists the toolset's tools from the given server and its MCP calls are answered from the recording; without it the recording that needs the server is refused, naming it", async () => {
    const recorded = join(dir, 'recorded');
    mkdirSync(recorded);
    // ch_meta answers with the key of the run that calls it: a live call would answer the candidate's own.
    const { worker, agents } = await mcpWorker('mcp-eval-record');
    const recordedResult = await worker.runUntil(async () => {
      const { workflowId } = await agents.start(run('mcp-changing', { steps: [callStep({ name: 'ch_meta', args: {} }), finalStep()] }));
      const result = await agents.result(workflowId);
      writeFileSync(join(recorded, 'meta.json'), await agents.exportHistory(workflowId));
      return result;
    });
    const [recordedMeta] = observations(recordedResult).map((o) => o.result);
    expect(recordedMeta).toEqual({ content: [{ type: 'text', text: expect.stringMatching(/\/call_0_0$/) }] });

    const workflowBundle = join(dir, 'workflow-bundle.js');
    writeFileSync(workflowBundle, bundle.code);
    const agentModule = await agentModuleForTests('test/support/mcp/agents.ts', 'eval-mcp-agents');
    const evaluate = (more: string[]) =>
      runAgentctl(['eval', recorded, '--workflow-bundle', workflowBundle, '--agent-module', agentModule, '--address', env.address, '--format', 'json', ...more]);

    const without = await evaluate([]);
    expect([without.code, without.stderr]).toEqual([2, expect.stringMatching(/meta\.json is a run of mcp-changing, whose toolset changing lists its tools from MCP server changing: give it with --mcp-config FILE/)]);

    const config = join(dir, 'mcp.json');
    writeFileSync(config, JSON.stringify({ changing: { transport: 'stdio' } }));
    const bad = await evaluate(['--mcp-config', config]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--mcp-config .*mcp\.json: mcpServers\.changing: command/)]);

    writeFileSync(config, JSON.stringify({ changing: { transport: 'stdio', command: process.execPath, args: [changingServer] } }));
    const given = await evaluate(['--mcp-config', config]);
    expect(given.stderr).not.toMatch(/agentctl:/);
    expect(given.code).toBe(0);
    const report = JSON.parse(given.stdout) as EvaluationReport;
    expect(report.runs.map((r) => [r.divergence, r.unrecorded, r.answeredCalls, r.sameFinal])).toEqual([[undefined, [], 1, true]]);
    const candidate = await agents.result(report.runs[0]!.candidateWorkflowId);
    expect(observations(candidate).map((o) => [o.name, o.status, o.result])).toEqual([['ch_meta', 'ok', recordedMeta]]);
  });
});

