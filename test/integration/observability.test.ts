/**
 * Tracing and metrics of one real run: an LLM agent (scripted OpenAI-compatible server) that
 * calls a tool needing approval and a tool that does not, so the run makes model calls, tool
 * calls and waits for a human.
 *
 * Tracing runs in this process: the worker and the client export to one in-memory exporter, and
 * the test checks the span tree from the client's start to each activity. Metrics need the SDK
 * runtime installed with Prometheus before anything else creates it, which jest's shared
 * process has done already, so the metrics run uses a worker process of its own
 * (DURABLE_AGENTS_PROMETHEUS) and the test scrapes it over HTTP, and the HTTP server's
 * `/metrics` (approvals waiting, computed from Temporal).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createModelActivities } from '../../activities/model';
import { AgentClient } from '../../client/agent-client';
import type { RunInput } from '../../contracts';
import { startAgentServer, type AgentServer } from '../../server';
import { callTools, FakeOpenAIServer, say, toolCall } from '../../testing/fake-model';
import { bundleWorkflowsForTests } from '../support/bundle-cache';
import { DurableAgentsPlugin } from '../../worker/plugin';
import { replayHistoryJson } from '../../worker/replay';
import { findTestAgent, testAgents } from '../support/agents';
import { allToolImplementations } from '../support/tools';
import { agentClient, createTestEnv, inProcessWorkerOptions, testWorkflowsPath, uniqueTaskQueue, workflowBundleOption } from '../support/test-env';
import { childWorkerEnv, cleanUpAll, startChildWorker, type ChildWorker } from '../support/child-worker';
import { testTempDir } from '../support/temp-dir';
import { waitFor } from '../support/wait';
import { freeLoopbackPort } from '../../testing/dev-server-port';

let env: TestWorkflowEnvironment;
let fake: FakeOpenAIServer;
let tracedBundle: { code: string };

beforeAll(async () => {
  // A namespace of its own: the API server's metrics count every open run of the namespace.
  env = await createTestEnv({ ownNamespace: true });
  fake = await FakeOpenAIServer.start();
  tracedBundle = { code: (await bundleWorkflowsForTests(testWorkflowsPath, { tracing: true })).code };
});

afterAll(async () => {
  await cleanUpAll(
    () => fake?.close(),
    () => env?.teardown(),
  );
});

afterEach(() => {
  expect(fake.errors).toEqual([]);
  expect(fake.remaining).toBe(0);
  fake.reset();
});

const agent = 'watchlist-llm';
const input: RunInput = { agent, messages: [{ role: 'user', content: 'Add NVDA and quote AAPL' }], sessionState: { watchlist: ['TSLA'] } };

/** Two model calls (20 + 10 tokens each, the fake's default usage); two tool calls, one of them approved by a human. */
function scriptRun(): void {
  fake.script(callTools(toolCall('add_to_watchlist', { symbols: ['NVDA'] }, 'a1'), toolCall('get_quote', { symbol: 'AAPL' }, 'q1')), say('Added NVDA; AAPL quoted.'));
}

/** Waits until the run asks for approval of `a1`, approves it, and waits for the result. */
async function approveAndFinish(agents: AgentClient, workflowId: string, whileWaiting?: () => Promise<void>): Promise<void> {
  await waitFor('the approval request', async () => ((await agents.pendingInputs(workflowId)).approvals.some((a) => a.toolCallId === 'a1') ? true : undefined));
  await whileWaiting?.();
  await agents.decide(workflowId, { decision: 'approve', toolCallId: 'a1', by: 'tester' });
  const result = await agents.result(workflowId);
  expect(result).toMatchObject({ status: 'completed', sessionState: { watchlist: ['TSLA', 'NVDA'] } });
}

describe('tracing', () => {
  const exporter = new InMemorySpanExporter();
  const spanProcessor = new SimpleSpanProcessor(exporter);

  /** A worker on the traced bundle whose spans go to the in-memory exporter. */
  async function tracedWorker(taskQueue: string): Promise<Worker> {
    const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
    return Worker.create({
      connection: env.nativeConnection,
      ...inProcessWorkerOptions,
      namespace: env.namespace ?? 'default',
      taskQueue,
      workflowBundle: tracedBundle,
      plugins: [
        new DurableAgentsPlugin({
          agents: testAgents,
          tools: allToolImplementations(),
          runtime: createModelActivities({ openai, findAgent: findTestAgent }),
          tracing: { spanProcessor, serviceName: 'obs-worker' },
        }),
      ],
    });
  }

  it('links the client start, the run, and each model and tool call in one trace, with agent attributes', async () => {
    const taskQueue = uniqueTaskQueue('obs-trace');
    const worker = await tracedWorker(taskQueue);
    const agents = await AgentClient.connect({ address: env.address, namespace: env.namespace ?? 'default', taskQueue }, { tracing: { spanProcessor, serviceName: 'obs-client' } });
    let workflowId = '';
    await worker.runUntil(async () => {
      scriptRun();
      workflowId = (await agents.start(input)).workflowId;
      await approveAndFinish(agents, workflowId);
      // Workflow spans reach the exporter through a sink after the run's last task.
      await waitFor('the run span', async () => (exporter.getFinishedSpans().some((s) => s.name === 'RunWorkflow:agentRun') ? true : undefined));
    });
    await agents.client.connection.close();

    const spans = exporter.getFinishedSpans();
    const named = (name: string): ReadableSpan[] => spans.filter((s) => s.name === name);
    const one = (name: string): ReadableSpan => {
      const found = named(name);
      expect(found.map((s) => s.name)).toEqual([name]);
      return found[0] as ReadableSpan;
    };
    const start = one('StartWorkflow:agentRun');
    const run = one('RunWorkflow:agentRun');
    const traceId = start.spanContext().traceId;
    expect(start.resource.attributes['service.name']).toBe('obs-client');
    expect(run.parentSpanId).toBe(start.spanContext().spanId);
    expect(run.resource.attributes['service.name']).toBe('obs-worker');

    // Every span of the run is in the client's trace.
    const runSpans = spans.filter((s) => s.spanContext().traceId === traceId);
    const byId = new Map(runSpans.map((s) => [s.spanContext().spanId, s]));
    const parentOf = (s: ReadableSpan): ReadableSpan | undefined => (s.parentSpanId ? byId.get(s.parentSpanId) : undefined);

    // Model calls: StartActivity (workflow side, child of the run) → RunActivity (worker side).
    const modelRuns = named('RunActivity:callModel');
    expect(modelRuns).toHaveLength(2);
    for (const [i, span] of modelRuns.sort((a, b) => Number(a.attributes['durable_agents.turn']) - Number(b.attributes['durable_agents.turn'])).entries()) {
      expect(span.spanContext().traceId).toBe(traceId);
      expect(parentOf(span)?.name).toBe('StartActivity:callModel');
      expect(parentOf(parentOf(span) as ReadableSpan)).toBe(run);
      expect(span.attributes).toMatchObject({
        'durable_agents.agent': agent,
        'durable_agents.turn': i,
        'gen_ai.request.model': 'gpt-4o-mini',
        'gen_ai.usage.input_tokens': 20,
        'gen_ai.usage.output_tokens': 10,
        temporalWorkflowId: workflowId,
      });
    }

    // Tool calls, the approved one included, with the call's id.
    for (const [tool, callId] of [
      ['add_to_watchlist', 'a1'],
      ['get_quote', 'q1'],
    ] as const) {
      const span = one(`RunActivity:${agent}/${tool}`);
      expect(span.spanContext().traceId).toBe(traceId);
      expect(parentOf(span)?.name).toBe(`StartActivity:${agent}/${tool}`);
      expect(parentOf(parentOf(span) as ReadableSpan)).toBe(run);
      expect(span.attributes).toMatchObject({ 'durable_agents.agent': agent, 'durable_agents.tool': tool, 'durable_agents.tool_call_id': callId, 'durable_agents.turn': 0 });
    }

    // The approval is the client's update span (updates are not traced inside the run: see workflows/bundle/tracing-interceptors.ts).
    expect(named('StartWorkflowUpdate:decideCall')).toHaveLength(1);
    expect(spans.filter((s) => s.name.startsWith('HandleUpdate:'))).toEqual([]);

    // The traced run's history replays with and without the tracing interceptors in the bundle.
    const history = JSON.parse(await agentClient(env, taskQueue).exportHistory(workflowId)) as unknown;
    expect({ traced: await replayHistoryJson(history, tracedBundle), untraced: await replayHistoryJson(history, await workflowBundleOption()) }).toMatchObject({
      traced: { ok: true },
      untraced: { ok: true },
    });
  });

  it('a traced run killed while it waits for approval replays with and without tracing', async () => {
    const taskQueue = uniqueTaskQueue('obs-trace-kill');
    const worker = await tracedWorker(taskQueue);
    const agents = await AgentClient.connect({ address: env.address, namespace: env.namespace ?? 'default', taskQueue }, { tracing: { spanProcessor } });
    let workflowId = '';
    await worker.runUntil(async () => {
      fake.script(callTools(toolCall('add_to_watchlist', { symbols: ['NVDA'] }, 'a1')));
      workflowId = (await agents.start(input)).workflowId;
      await waitFor('the approval request', async () => ((await agents.pendingInputs(workflowId)).approvals.length === 1 ? true : undefined));
      await agents.kill(workflowId, { reason: 'not needed' });
      expect(await agents.result(workflowId)).toMatchObject({ status: 'terminated' });
    });
    await agents.client.connection.close();
    const history = JSON.parse(await agentClient(env, taskQueue).exportHistory(workflowId)) as unknown;
    expect({ traced: await replayHistoryJson(history, tracedBundle), untraced: await replayHistoryJson(history, await workflowBundleOption()) }).toMatchObject({
      traced: { ok: true },
      untraced: { ok: true },
    });
  });
});

/** One sample of a Prometheus text exposition. */
interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

function parsePrometheus(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => {
      const m = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
      if (!m) throw new Error(`not a Prometheus sample: ${line}`);
      const labels: Record<string, string> = {};
      for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, '$1');
      return { name: m[1] as string, labels, value: Number(m[3]) };
    });
}

/** Sum of the samples of `name` whose labels include `labels`. */
function total(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
}

function has(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): boolean {
  return samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}


async function scrape(url: string, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await fetch(url, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return parsePrometheus(await response.text());
}

describe('metrics', () => {
  let child: ChildWorker | undefined;
  let server: AgentServer | undefined;
  afterAll(async () => {
    await cleanUpAll(
      () => child?.stop(),
      () => server?.close(),
    );
  });

  it("serves the SDK's and the agents' metrics in Prometheus format, and approvals waiting from Temporal", async () => {
    const taskQueue = uniqueTaskQueue('obs-metrics');
    const port = await freeLoopbackPort();
    const tenantsFile = join(testTempDir('tenants-'), 'tenants.json');
    writeFileSync(tenantsFile, JSON.stringify({ default: { quota: { costPerMonth: 100 } } }));
    const workerEnv = childWorkerEnv(env.address, env.namespace ?? 'default', taskQueue).env;
    child = await startChildWorker({
      ...workerEnv,
      // Only a port: the worker binds it on loopback.
      DURABLE_AGENTS_PROMETHEUS: String(port),
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_API_KEY: 'test-key',
      // Runs of a tenant join its account; each call of the fake (20 + 10 tokens) costs 0.04 USD.
      DURABLE_AGENTS_TENANTS_FILE: tenantsFile,
      DURABLE_AGENTS_TEST_PRICES: JSON.stringify({ currency: 'USD', models: { 'gpt-4o-mini': { inputPerMillion: 1_000, outputPerMillion: 2_000 } } }),
    });
    const agents = agentClient(env, taskQueue);
    const token = 'metrics-viewer-token-0123456789';
    server = await startAgentServer({ agents, auth: { localDev: false, tokens: [{ name: 'prometheus', role: 'viewer', token }] } });
    const serverMetrics = (): Promise<Sample[]> => scrape(`${server?.url}/metrics`, { authorization: `Bearer ${token}` });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);

    scriptRun();
    const tenant = `obs-${Date.now()}`;
    const { workflowId } = await agents.start({ ...input, tenant });
    await approveAndFinish(agents, workflowId, async () => {
      // Visibility lags a little behind the run: wait until it lists the run as awaiting.
      const waiting = await waitFor('the approval in /metrics', async () => {
        const samples = await serverMetrics();
        return total(samples, 'durable_agents_approvals_waiting', { agent }) === 1 ? samples : undefined;
      });
      expect(total(waiting, 'durable_agents_runs_open', { agent, status: 'awaiting' })).toBe(1);
      expect(total(waiting, 'durable_agents_runs_open_by_tenant', { tenant, status: 'awaiting' })).toBe(1);
      expect(total(waiting, 'durable_agents_approval_oldest_age_seconds', { agent })).toBeGreaterThanOrEqual(0);
      expect(has(waiting, 'durable_agents_approval_oldest_age_seconds', { agent })).toBe(true);
      expect(total(waiting, 'durable_agents_metrics_truncated')).toBe(0);
    });
    const after = await waitFor('no approval waiting in /metrics', async () => {
      const samples = await serverMetrics();
      return total(samples, 'durable_agents_approvals_waiting') === 0 && total(samples, 'durable_agents_runs_open', { agent }) === 0 ? samples : undefined;
    });
    expect(total(after, 'durable_agents_approvals_waiting', { agent })).toBe(0);

    // The tenant's account: the run's two model calls in its day and month, nothing waiting, no hold.
    const accounted = await waitFor("the tenant's usage in /metrics", async () => {
      const samples = await serverMetrics();
      return total(samples, 'durable_agents_tenant_tokens', { tenant, period: 'day' }) === 60 ? samples : undefined;
    });
    expect(total(accounted, 'durable_agents_tenant_tokens', { tenant, period: 'month' })).toBe(60);
    expect(total(accounted, 'durable_agents_tenant_cost', { tenant, period: 'day', currency: 'USD' })).toBeCloseTo(0.08, 10);
    expect(total(accounted, 'durable_agents_tenant_cost', { tenant, period: 'month', currency: 'USD' })).toBeCloseTo(0.08, 10);
    expect(has(accounted, 'durable_agents_tenant_runs_waiting', { tenant })).toBe(true);
    expect(total(accounted, 'durable_agents_tenant_runs_waiting', { tenant })).toBe(0);
    expect(has(accounted, 'durable_agents_tenant_quota_held', { tenant })).toBe(true);
    expect(total(accounted, 'durable_agents_tenant_quota_held', { tenant })).toBe(0);
    expect(total(accounted, 'durable_agents_metrics_truncated')).toBe(0);
    const text = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    for (const name of ['durable_agents_tenant_cost', 'durable_agents_tenant_tokens', 'durable_agents_tenant_runs_waiting', 'durable_agents_tenant_quota_held']) {
      expect(text).toContain(`# HELP ${name} `);
      expect(text).toContain(`# TYPE ${name} gauge`);
    }

    // The worker's endpoint: the run's counters are emitted when its last task completes.
    const metricsUrl = `http://127.0.0.1:${port}/metrics`;
    const samples = await waitFor('the run in the worker metrics', async () => {
      const s = await scrape(metricsUrl);
      return total(s, 'durable_agents_runs_ended', { agent, status: 'completed' }) === 1 ? s : undefined;
    });
    const q = { task_queue: taskQueue };
    const tq = { taskQueue };
    // The SDK's own metrics.
    expect(total(samples, 'temporal_workflow_completed', { ...q, workflow_type: 'agentRun' })).toBe(1);
    expect(total(samples, 'temporal_activity_execution_latency_count', q)).toBe(4);
    // The agents' metrics.
    expect(total(samples, 'durable_agents_runs_started', { ...tq, agent })).toBe(1);
    expect(total(samples, 'durable_agents_runs_ended', { ...tq, agent })).toBe(1);
    expect(total(samples, 'durable_agents_model_call_latency_ms_count', { ...tq, agent, model: 'gpt-4o-mini', outcome: 'ok' })).toBe(2);
    expect(total(samples, 'durable_agents_model_tokens', { ...tq, agent, model: 'gpt-4o-mini', kind: 'input' })).toBe(40);
    expect(total(samples, 'durable_agents_model_tokens', { ...tq, agent, model: 'gpt-4o-mini', kind: 'output' })).toBe(20);
    expect(total(samples, 'durable_agents_tool_call_latency_ms_count', { ...tq, agent })).toBe(2);
    expect(total(samples, 'durable_agents_tool_call_latency_ms_count', { ...tq, agent, tool: 'add_to_watchlist', outcome: 'ok' })).toBe(1);
    expect(total(samples, 'durable_agents_tool_call_latency_ms_count', { ...tq, agent, tool: 'get_quote', outcome: 'ok' })).toBe(1);
  });
});
