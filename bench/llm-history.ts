/**
 * `npm run bench:llm`: does an LLM-planned run add roughly constant bytes to workflow history
 * per turn? Starts its own dev server (127.0.0.1:7533, data in bench/results/), a worker whose
 * model activity talks to the scripted fake OpenAI server, and runs watchlist-llm for 10, 100
 * and 500 turns (each turn: one model call, one small get_quote call). Prints a table; not a test.
 * Long runs continue as new (the runtime does, near Temporal's suggested limits), so a run's
 * history is the sum over its executions.
 *
 * Usage: npm run bench:llm [-- 10 100 500]
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createActivities } from '../activities';
import { createModelActivities } from '../activities/model';
import { findTestAgent, testAgents } from '../test/support/agents';
import { allToolImplementations } from '../test/support/tools';
import { AgentClient } from '../client/agent-client';
import { jsonByteLength, transcriptQuery, type Message } from '../contracts';
import { callTools, FakeOpenAIServer, say, toolCall, type RecordedRequest } from '../testing/fake-model';
import { buildTestBundle } from '../test/support/test-env';
import { startDevServer } from '../testing/dev-server';

const port = 7533;
const taskQueue = 'bench-llm-history';
const dbFile = resolve(__dirname, 'results', 'llm-history.sqlite');

/** One measured run (all executions of its continue-as-new chain). */
interface Row {
  turns: number;
  executions: number;
  historyBytes: number;
  events: number;
  /** JSON bytes of every callModel input and result payload: what the model planner adds. */
  modelBytes: number;
  /** Input bytes of the executions after the first: the runtime's carried state. */
  carriedBytes: number;
  /** What the callModel inputs would have been had each carried the whole transcript. */
  fullTranscriptBytes: number;
  wallMs: number;
}

type History = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;

/** The fake model: one get_quote call per turn until the run has made `bench:<T>` of them, then a final answer. */
function benchModel(request: RecordedRequest): ReturnType<typeof say> {
  const messages = request.body?.messages ?? [];
  const target = Number(/bench:(\d+)/.exec(messages.find((m) => m.role === 'user')?.content ?? '')?.[1] ?? 0);
  const done = messages.filter((m) => m.role === 'tool').length;
  return done < target ? callTools(toolCall('get_quote', { symbol: 'AAPL' })) : say(`quoted AAPL ${done} times`);
}

/** Histories of every execution of a run, first to last, following continue-as-new. */
async function chainOf(client: Client, workflowId: string, firstRunId: string): Promise<History[]> {
  const histories: History[] = [];
  for (let runId: string | undefined = firstRunId; runId; ) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    histories.push(history);
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return histories;
}

async function transcriptOf(client: Client, workflowId: string): Promise<Message[]> {
  const handle = client.workflow.getHandle(workflowId);
  const messages: Message[] = [];
  for (;;) {
    const page = await handle.query(transcriptQuery, { from: messages.length, to: messages.length + 500 });
    messages.push(...page.messages);
    if (messages.length >= page.total || page.messages.length === 0) return messages;
  }
}

function payloadBytes(payloads: { data?: Uint8Array | null }[] | null | undefined): number {
  return (payloads ?? []).reduce((sum, p) => sum + (p.data?.length ?? 0), 0);
}

async function measure(agents: AgentClient, client: Client, turns: number): Promise<Row> {
  const workflowId = `bench-llm-${turns}-${Date.now()}`;
  const started = performance.now();
  const { runId } = await agents.start(
    {
      agent: 'watchlist-llm',
      messages: [{ role: 'user', content: `bench:${turns}` }],
      sessionState: { watchlist: ['AAPL'] },
      policy: { maxIterations: turns + 10, maxToolCalls: turns + 10, timeBudgetMs: 3_600_000 },
    },
    { workflowId },
  );
  const result = await agents.result(workflowId);
  const wallMs = performance.now() - started;
  if (result.status !== 'completed' || result.iterations !== turns) throw new Error(`run ${workflowId} ended ${result.status} after ${result.iterations} of ${turns} turns`);
  const histories = await chainOf(client, workflowId, runId);
  const events = histories.flatMap((h) => h.events ?? []);
  const modelActivities = new Set<string>();
  let modelBytes = 0;
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'callModel') {
      modelActivities.add(String(e.eventId));
      modelBytes += payloadBytes(scheduled.input?.payloads);
    }
    const completed = e.activityTaskCompletedEventAttributes;
    if (completed && modelActivities.has(String(completed.scheduledEventId))) modelBytes += payloadBytes(completed.result?.payloads);
  }
  const carriedBytes = histories.slice(1).reduce((sum, h) => sum + payloadBytes(h.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads), 0);
  // The naive design: model call k carries messages [0, 1 + 2k) (the user message, then a call and its result per turn).
  const transcript = await transcriptOf(client, workflowId);
  const prefix = [0];
  for (const m of transcript) prefix.push((prefix.at(-1) ?? 0) + jsonByteLength(m));
  const fullTranscriptBytes = Array.from({ length: turns + 1 }, (_, call) => prefix[Math.min(transcript.length, 1 + 2 * call)] ?? 0).reduce((a, b) => a + b, 0);
  return {
    turns,
    executions: histories.length,
    historyBytes: histories.reduce((sum, h) => sum + Buffer.byteLength(historyToJSON(h), 'utf8'), 0),
    events: events.length,
    modelBytes,
    carriedBytes,
    fullTranscriptBytes,
    wallMs,
  };
}

function printTable(rows: readonly Row[]): void {
  const header = ['turns', 'executions', 'events', 'history bytes', 'history bytes/turn', 'callModel bytes/turn', 'carried-state bytes', 'full-transcript callModel bytes/turn (est.)', 'wall s'];
  const lines = rows.map((r) => [
    String(r.turns),
    String(r.executions),
    String(r.events),
    String(r.historyBytes),
    (r.historyBytes / r.turns).toFixed(0),
    (r.modelBytes / r.turns).toFixed(0),
    String(r.carriedBytes),
    (r.fullTranscriptBytes / r.turns).toFixed(0),
    (r.wallMs / 1000).toFixed(1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]): string => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join(' | ');
  console.log(`\n${fmt(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}`);
  for (const line of lines) console.log(fmt(line));
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]];
    if (!a || !b) continue;
    const marginal = (f: (r: Row) => number): string => ((f(b) - f(a)) / (b.turns - a.turns)).toFixed(0);
    console.log(
      `marginal bytes per turn, ${a.turns} → ${b.turns} turns: history ${marginal((r) => r.historyBytes)}, ` +
        `history without carried state ${marginal((r) => r.historyBytes - r.carriedBytes)}, callModel ${marginal((r) => r.modelBytes)}`,
    );
  }
  console.log('history bytes: historyToJSON of every execution of the run; carried state: inputs of executions after a continue-as-new.');
}

async function main(): Promise<void> {
  const turnsList = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0);
  const sizes = turnsList.length ? turnsList : [10, 100, 500];
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${dbFile}${suffix}`, { force: true });
  const server = await startDevServer({ port, uiPort: port + 1000, dbFile, reuseExisting: false, log: () => {} }).catch((err: unknown) => {
    throw new Error(`could not start the bench dev server on 127.0.0.1:${port} (a leftover server from a killed bench?): ${String(err)}`);
  });
  const fake = await FakeOpenAIServer.start();
  fake.respondWith(benchModel);
  try {
    const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'bench', maxRetries: 0 });
    const worker = await Worker.create({
      connection: await NativeConnection.connect({ address: server.address }),
      namespace: server.namespace,
      taskQueue,
      workflowBundle: await buildTestBundle(),
      activities: createActivities({ agents: testAgents, tools: allToolImplementations(), runtime: createModelActivities({ openai, findAgent: findTestAgent }) }),
    });
    const client = new Client({ connection: await Connection.connect({ address: server.address }), namespace: server.namespace });
    const agents = new AgentClient(client, taskQueue);
    const rows: Row[] = [];
    await worker.runUntil(async () => {
      for (const turns of sizes) {
        process.stderr.write(`running ${turns} turns…\n`);
        rows.push(await measure(agents, client, turns));
      }
    });
    if (fake.errors.length) throw new Error(`the fake model reported errors: ${fake.errors.join('; ')}`);
    printTable(rows);
  } finally {
    await fake.close();
    await server.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
