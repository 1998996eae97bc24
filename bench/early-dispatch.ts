/**
 * `npm run bench:early [-- --repeats 5 --gap-ms 1000 --step-ms 300]`: a model (the fake
 * OpenAI-compatible server) streams two tool calls `gap-ms` apart, each a `step` of `step-ms`.
 * Without early dispatch the first call starts when the answer ends; with it, as soon as it is
 * complete in the stream. Taken from the run's history: from the model activity's start (the
 * first token follows at once) to the first tool result, and to the turn's last tool result.
 * Figures only, never assertions: shared machines are noisy.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import OpenAI from 'openai';
import type { temporal } from '@temporalio/proto';
import { createModelActivities } from '../activities/model';
import { callTools, FakeOpenAIServer, paced, say, toolCall } from '../testing/fake-model';
import { provisionTemporalCli } from '../testing/temporal-cli';
import { findTestAgent } from '../test/support/agents';
import { allToolImplementations } from '../test/support/tools';
import { agentClient, buildTestBundle, createTestEnv, createTestWorker, uniqueTaskQueue } from '../test/support/test-env';
import { percentile } from './stats';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

function ms(e: HistoryEvent | undefined): number {
  if (!e?.eventTime) throw new Error('event without time');
  return Number(e.eventTime.seconds) * 1000 + Math.floor((e.eventTime.nanos ?? 0) / 1e6);
}

/** Model start → first tool result, and → last tool result, from one run's history. */
function timings(events: readonly HistoryEvent[]): { firstResult: number; lastResult: number } {
  const types = new Map(events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [[String(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name ?? '']] : [])));
  const modelStart = events.find((e) => e.activityTaskStartedEventAttributes && types.get(String(e.activityTaskStartedEventAttributes.scheduledEventId)) === 'callModel');
  const toolDone = events.filter((e) => e.activityTaskCompletedEventAttributes && types.get(String(e.activityTaskCompletedEventAttributes.scheduledEventId)) === 'toolbox-llm/step');
  if (!modelStart || toolDone.length < 2) throw new Error('the run did not call the model and two steps');
  return { firstResult: ms(toolDone[0]) - ms(modelStart), lastResult: ms(toolDone.at(-1)) - ms(modelStart) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { repeats: { type: 'string', default: '5' }, 'gap-ms': { type: 'string', default: '1000' }, 'step-ms': { type: 'string', default: '300' } } });
  const repeats = Number(values.repeats);
  const gapMs = Number(values['gap-ms']);
  const stepMs = Number(values['step-ms']);
  for (const [flag, n] of [['--repeats', repeats], ['--gap-ms', gapMs], ['--step-ms', stepMs]] as const) {
    if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer`);
  }
  const cli = provisionTemporalCli();
  if (cli) process.env.TEMPORAL_CLI_PATH = cli.path;
  const bundlePath = join(tmpdir(), `durable-agents-early-${process.pid}.js`);
  writeFileSync(bundlePath, (await buildTestBundle()).code);
  process.env.DURABLE_AGENTS_TEST_BUNDLE = bundlePath;
  const env = await createTestEnv();
  const fake = await FakeOpenAIServer.start();
  const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'bench', maxRetries: 0 });
  const taskQueue = uniqueTaskQueue('bench-early');
  const worker = await createTestWorker(env, taskQueue, allToolImplementations(), createModelActivities({ openai, findAgent: findTestAgent }));
  const running = worker.run();
  const agents = agentClient(env, taskQueue);
  const rows: [string, { firstResult: number; lastResult: number }[]][] = [
    ['early dispatch off', []],
    ['early dispatch on', []],
  ];
  try {
    for (let r = 0; r < repeats; r++) {
      for (const [i, earlyDispatch] of [false, true].entries()) {
        fake.script(paced(callTools(toolCall('step', { label: 'a', ms: stepMs }, 'call_a'), toolCall('step', { label: 'b', ms: stepMs }, 'call_b')), gapMs), say('done'));
        const { workflowId } = await agents.start({ agent: 'toolbox-llm', messages: [{ role: 'user', content: 'two steps' }], policy: { earlyDispatch } });
        await agents.result(workflowId);
        const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
        rows[i]![1].push(timings(history.events ?? []));
      }
    }
    process.stdout.write(`model streams 2 calls ${gapMs} ms apart, each a ${stepMs} ms step; ${repeats} repeats (ms from model start, history clock)\n`);
    for (const [label, runs] of rows) {
      const first = runs.map((x) => x.firstResult).sort((a, b) => a - b);
      const last = runs.map((x) => x.lastResult).sort((a, b) => a - b);
      process.stdout.write(`${label.padEnd(20)} first tool result p50 ${percentile(first, 0.5).toFixed(0).padStart(6)}  last tool result p50 ${percentile(last, 0.5).toFixed(0).padStart(6)}  first: ${first.join(' ')}\n`);
    }
  } finally {
    worker.shutdown();
    await running;
    await fake.close();
    await env.teardown();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
