/**
 * `npm run bench:live [-- --smoke]`: the live surface of the server under fan-out.
 *
 * A real dev server, an in-process worker whose model activity streams from the fake
 * OpenAI server and publishes token deltas over HTTP to a real agent server, and SSE
 * subscribers reading `/api/runs/:id/events`:
 * 1. one run followed by 100 subscribers at once;
 * 2. 50 runs at once, each followed by 2 subscribers.
 * Each subscriber's events are compared with the run's log (events query): missed and
 * duplicated events must both be 0. Delta latency is the time from the model activity's
 * publish to a subscriber's receipt (one clock: everything runs in this process), over the
 * final answer's text deltas. Deltas are best effort: a subscriber that connects after a model
 * call's result landed does not get that call's deltas (it gets its events). Event latency is
 * the time from the workflow task that logged an event (its `at`) to a subscriber's receipt,
 * over events logged once the subscriber was connected: with the worker announcing new events
 * (the default), and in a last scenario with a worker that does not, so followers find events
 * only by their paced reads.
 * Then, with `--servers 1,3` (the default without `--smoke`), the same on N API server processes
 * sharing one Redis (`bench/live-servers.ts`): `--broker-subscribers` (default 300) SSE
 * subscribers spread over them, delta latency direct and through the broker, and CPU and memory
 * per subscriber on the servers.
 * Figures only, never assertions (shared machines are noisy). `--smoke`: small numbers.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { ActivityDependencies } from '../activities';
import { createModelActivities, HttpDeltaPublisher, type DeltaSink } from '../activities/model';
import { DurableAgentsPlugin } from '../worker/plugin';
import { testAgents } from '../test/support/agents';
import type { AgentClient } from '../client/agent-client';
import type { RunEvent, RunInput } from '../contracts';
import type { TokenDelta } from '../contracts/deltas';
import { startAgentServer, type AgentServer } from '../server';
import { callTools, dynamic, FakeOpenAIServer, paced, say, toolCall, type FakeStep, type RecordedRequest } from '../testing/fake-model';
import { findTestAgent } from '../test/support/agents';
import { SseClient } from '../test/support/sse-client';
import { agentClient, buildTestBundle, createTestEnv, uniqueTaskQueue, workflowBundleOption } from '../test/support/test-env';
import { allToolImplementations } from '../test/support/tools';
import { provisionTemporalCli } from '../testing/temporal-cli';
import { measureServers } from './live-servers';
import { percentile } from './stats';

const viewerToken = 'bench-viewer-token-0123456789';
const publisherToken = 'bench-publisher-token-0123456789';
const answer = 'Quoted. '.repeat(40).trim();

interface Tally {
  streams: number;
  expected: number;
  missed: number;
  duplicated: number;
  deltas: number;
  latencies: number[];
  eventLatencies: number[];
}

const emptyTally = (): Tally => ({ streams: 0, expected: 0, missed: 0, duplicated: 0, deltas: 0, latencies: [], eventLatencies: [] });

/** A model that quotes AAPL `turns` times, then answers with text. */
function modelStep(turns: number): FakeStep {
  return dynamic((request: RecordedRequest) => {
    const toolMessages = (request.body?.messages ?? []).filter((m) => m.role === 'tool').length;
    return toolMessages < turns ? callTools(toolCall('get_quote', { symbol: 'AAPL' })) : say(answer);
  });
}

async function followRun(server: AgentServer, agents: AgentClient, input: RunInput, subscribers: number, tally: Tally): Promise<void> {
  const { workflowId } = await agents.start(input);
  const clients = Array.from({ length: subscribers }, () => new SseClient(`${server.url}/api/runs/${workflowId}/events`, { authorization: `Bearer ${viewerToken}` }));
  await Promise.all(clients.map((c) => c.done));
  const log = (await agents.events(workflowId, 0, 1000)).events;
  for (const client of clients) {
    tally.streams += 1;
    tally.expected += log.length;
    const counts = new Map<number, number>();
    for (const event of client.data<RunEvent>('run-event')) counts.set(event.seq, (counts.get(event.seq) ?? 0) + 1);
    const connectedAt = client.messages[0]?.receivedAt ?? Number.POSITIVE_INFINITY;
    for (const message of client.messages) {
      if (message.event !== 'run-event') continue;
      const loggedAt = Date.parse((JSON.parse(message.data) as RunEvent).at);
      if (loggedAt > connectedAt) tally.eventLatencies.push(message.receivedAt - loggedAt);
    }
    for (const event of log) if (!counts.has(event.seq)) tally.missed += 1;
    for (const n of counts.values()) if (n > 1) tally.duplicated += n - 1;
    for (const message of client.messages) {
      if (message.event !== 'delta') continue;
      const delta = JSON.parse(message.data) as TokenDelta;
      tally.deltas += 1;
      // Latency of the final answer's text only: by then every subscriber is connected. Deltas
      // of a call still running when a subscriber joins are replayed to it, published earlier.
      if (delta.kind === 'text') tally.latencies.push(message.receivedAt - delta.at);
    }
  }
}

function report(label: string, tally: Tally, ms: number): void {
  const lat = tally.latencies;
  const ev = tally.eventLatencies;
  const figures =
    (lat.length > 0 ? `deltas ${tally.deltas}; answer text publish->receipt p50 ${percentile(lat, 0.5).toFixed(0)} ms p99 ${percentile(lat, 0.99).toFixed(0)} ms (${lat.length})` : 'no deltas') +
    (ev.length > 0 ? `; events logged->receipt p50 ${percentile(ev, 0.5).toFixed(0)} ms p99 ${percentile(ev, 0.99).toFixed(0)} ms (${ev.length})` : '');
  process.stdout.write(
    `${label.padEnd(34)} streams ${String(tally.streams).padStart(4)}  events ${String(tally.expected).padStart(6)}  missed ${tally.missed}  duplicated ${tally.duplicated}  ${figures}  ${(ms / 1000).toFixed(1)} s\n`,
  );
}

/** The test worker, with the model activities given; `announce`: where it announces runs' new events. */
async function liveWorker(env: TestWorkflowEnvironment, taskQueue: string, runtime: ActivityDependencies['runtime'], announce?: DeltaSink): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundleOption(),
    plugins: [new DurableAgentsPlugin({ agents: testAgents, tools: allToolImplementations(), runtime, ...(announce ? { model: { deltas: announce } } : {}) })],
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { smoke: { type: 'boolean', default: false }, servers: { type: 'string' }, 'broker-subscribers': { type: 'string' } } });
  const scale = values.smoke ? { subscribers: 10, runs: 5, perRun: 2, turns: 2 } : { subscribers: 100, runs: 50, perRun: 2, turns: 3 };
  const serverCounts = (values.servers ?? (values.smoke ? '' : '1,3'))
    .split(',')
    .filter(Boolean)
    .map((n) => Number(n));
  const brokerSubscribers = Number(values['broker-subscribers'] ?? 300);
  if (serverCounts.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(brokerSubscribers) || brokerSubscribers < 1) {
    throw new Error('--servers: comma-separated server counts (e.g. 1,3); --broker-subscribers: a positive number');
  }
  const cli = provisionTemporalCli();
  if (cli) process.env.TEMPORAL_CLI_PATH = cli.path;
  const dir = join(tmpdir(), `durable-agents-live-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const bundlePath = join(dir, 'bundle.js');
  writeFileSync(bundlePath, (await buildTestBundle()).code);
  process.env.DURABLE_AGENTS_TEST_BUNDLE = bundlePath;

  const env = await createTestEnv();
  const fake = await FakeOpenAIServer.start();
  const taskQueue = uniqueTaskQueue('bench-live');
  const agents = agentClient(env, taskQueue);
  const server = await startAgentServer({
    agents,
    auth: { localDev: false, tokens: [{ name: 'bench', role: 'viewer', token: viewerToken }, { name: 'worker', role: 'publisher', token: publisherToken }] },
  });
  const publisher = new HttpDeltaPublisher({ url: server.url, token: publisherToken });
  const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'bench', maxRetries: 0 });
  const worker = await liveWorker(env, taskQueue, createModelActivities({ openai, findAgent: findTestAgent, deltas: publisher }), publisher);
  // A worker that does not announce new events: its runs' followers find them by paced reads.
  const quietQueue = uniqueTaskQueue('bench-live-quiet');
  const quietAgents = agentClient(env, quietQueue);
  const quietWorker = await liveWorker(env, quietQueue, createModelActivities({ openai, findAgent: findTestAgent, deltas: publisher }));
  const input: RunInput = { agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Quote AAPL' }], sessionState: { watchlist: ['AAPL'] } };
  try {
    const quietRunning = quietWorker.run();
    await worker.runUntil(async () => {
      process.stdout.write(`live surface: ${scale.turns} tool turns + a ${answer.length}-character streamed answer per run\n`);
      fake.script(...Array.from({ length: scale.turns + 1 }, () => modelStep(scale.turns)));
      const one = emptyTally();
      let started = performance.now();
      await followRun(server, agents, input, scale.subscribers, one);
      report(`1 run x ${scale.subscribers} subscribers`, one, performance.now() - started);

      fake.script(...Array.from({ length: scale.runs * (scale.turns + 1) }, () => modelStep(scale.turns)));
      const many = emptyTally();
      started = performance.now();
      await Promise.all(Array.from({ length: scale.runs }, () => followRun(server, agents, input, scale.perRun, many)));
      report(`${scale.runs} runs x ${scale.perRun} subscribers`, many, performance.now() - started);

      const quietRuns = Math.max(2, Math.round(scale.runs / 5));
      fake.script(...Array.from({ length: quietRuns * (scale.turns + 1) }, () => modelStep(scale.turns)));
      const quiet = emptyTally();
      started = performance.now();
      await Promise.all(Array.from({ length: quietRuns }, () => followRun(server, quietAgents, input, scale.perRun, quiet)));
      report(`${quietRuns} runs x ${scale.perRun}, no announcements`, quiet, performance.now() - started);

      const stats = server.live.stats();
      process.stdout.write(
        `followers started ${stats.feedsStarted}; announcements of new events received ${stats.announcementsReceived}, ${stats.announcementsWaking} woke a follower; deltas received ${stats.deltasReceived}, dropped by the publisher ${publisher.stats.dropped}; fake model errors ${fake.errors.length}\n`,
      );
    });
    quietWorker.shutdown();
    await quietRunning;
    if (serverCounts.length > 0) {
      // Several API server processes on one Redis: a run streaming a sentence each turn.
      const brokerTurns = 12;
      fake.respondWith((request) => {
        const toolMessages = (request.body?.messages ?? []).filter((m) => m.role === 'tool').length;
        if (toolMessages >= brokerTurns) return say(answer);
        // The first turn's second call comes 1.5 s later: the subscribers connect meanwhile.
        const quote = { ...callTools(toolCall('get_quote', { symbol: 'AAPL' }), toolCall('get_quote', { symbol: 'MSFT' })), content: 'Looking at AAPL and MSFT once more before answering. '.repeat(3) };
        return toolMessages === 0 ? paced(quote, 1_500) : quote;
      });
      process.stdout.write(
        `API servers on one Redis: ${brokerTurns / 2} tool turns of 2 calls, each streaming a ${'Looking at AAPL and MSFT once more before answering. '.length * 3}-character sentence, + a ${answer.length}-character answer; the worker posts to the first server\n`,
      );
      for (const count of serverCounts) {
        const brokerQueue = uniqueTaskQueue('bench-live-servers');
        await measureServers(
          {
            env,
            taskQueue: brokerQueue,
            agents: agentClient(env, brokerQueue),
            viewerToken,
            publisherToken,
            input,
            startWorker: (url) => {
              const posting = new HttpDeltaPublisher({ url, token: publisherToken });
              return liveWorker(env, brokerQueue, createModelActivities({ openai, findAgent: findTestAgent, deltas: posting }), posting);
            },
          },
          count,
          brokerSubscribers,
        );
      }
      fake.respondWith(undefined);
    }
  } finally {
    await server.close();
    await fake.close();
    await env.teardown();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
