/**
 * `npm run bench:graph [-- --repeats 5 --step-ms 300]`: a dependency-aware plan of 16 calls in
 * 4 levels (each call depends on two calls of the level before) against the same 16 calls run
 * one after another. Every call sleeps `step-ms`, so the critical path is 4 steps and the sum
 * is 16. The turn's time is taken from the run's own events (first tool_call to last
 * tool_result, workflow clock). Figures only, never assertions: shared machines are noisy.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { RunEvent, RunInput, ToolCall } from '../contracts';
import { provisionTemporalCli } from '../testing/temporal-cli';
import { allToolImplementations } from '../test/support/tools';
import { agentClient, buildTestBundle, createTestEnv, createTestWorker, uniqueTaskQueue } from '../test/support/test-env';
import { finalStep, scriptedInput } from '../test/support/scripts';
import { percentile } from './stats';

const levels = 4;
const width = 4;

/** Level l, call i depends on calls i and i+1 (mod width) of level l-1. */
function graphCalls(stepMs: number, withDependencies: boolean): ToolCall[] {
  const calls: ToolCall[] = [];
  for (let l = 0; l < levels; l++) {
    for (let i = 0; i < width; i++) {
      const dependsOn = l > 0 && withDependencies ? [`l${l - 1}c${i}`, `l${l - 1}c${(i + 1) % width}`] : undefined;
      calls.push({ id: `l${l}c${i}`, name: 'step', args: { label: `l${l}c${i}`, ms: stepMs }, ...(dependsOn ? { dependsOn } : {}) });
    }
  }
  return calls;
}

function turnMs(events: readonly RunEvent[]): number {
  const first = events.find((e) => e.type === 'tool_call');
  const last = events.filter((e) => e.type === 'tool_result').at(-1);
  if (!first || !last) throw new Error('the run has no tool calls');
  return Date.parse(last.at) - Date.parse(first.at);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { repeats: { type: 'string', default: '5' }, 'step-ms': { type: 'string', default: '300' } } });
  const repeats = Number(values.repeats);
  const stepMs = Number(values['step-ms']);
  if (!Number.isInteger(repeats) || repeats < 1) throw new Error(`--repeats must be a positive integer, got ${values.repeats}`);
  if (!Number.isInteger(stepMs) || stepMs < 1) throw new Error(`--step-ms must be a positive integer, got ${values['step-ms']}`);
  const cli = provisionTemporalCli();
  if (cli) process.env.TEMPORAL_CLI_PATH = cli.path;
  const bundlePath = join(tmpdir(), `durable-agents-graph-${process.pid}.js`);
  writeFileSync(bundlePath, (await buildTestBundle()).code);
  process.env.DURABLE_AGENTS_TEST_BUNDLE = bundlePath;
  const env = await createTestEnv();
  const taskQueue = uniqueTaskQueue('bench-graph');
  const worker = await createTestWorker(env, taskQueue, allToolImplementations());
  const running = worker.run();
  const agents = agentClient(env, taskQueue);
  const cases: [string, RunInput][] = [
    ['graph (dependsOn, concurrent)', scriptedInput([{ type: 'tool_calls', calls: graphCalls(stepMs, true) }, finalStep()])],
    ['sequential (one by one)', scriptedInput([{ type: 'tool_calls', calls: graphCalls(stepMs, false) }, finalStep()], { policy: { parallelToolCalls: false } })],
  ];
  try {
    const rows: [string, number[]][] = cases.map(([label]) => [label, []]);
    // Interleaved, so drift on the machine hits both cases alike.
    for (let r = 0; r < repeats; r++) {
      for (const [i, [, input]] of cases.entries()) {
        const { workflowId } = await agents.start(input);
        const result = await agents.result(workflowId);
        if (result.status !== 'completed') throw new Error(`${workflowId} ended ${result.status}`);
        rows[i]![1].push(turnMs((await agents.events(workflowId, 0, 1000)).events));
      }
    }
    const criticalPath = levels * stepMs;
    const sum = levels * width * stepMs;
    process.stdout.write(`16 calls in ${levels} levels, ${stepMs} ms each: critical path ${criticalPath} ms, sum ${sum} ms; ${repeats} repeats (turn ms, workflow clock)\n`);
    for (const [label, ms] of rows) {
      const sorted = [...ms].sort((a, b) => a - b);
      const median = percentile(sorted, 0.5);
      process.stdout.write(
        `${label.padEnd(32)} median ${median.toFixed(0).padStart(6)}  ×critical path ${(median / criticalPath).toFixed(2)}  ×sum ${(median / sum).toFixed(2)}  all ${sorted.map((x) => x.toFixed(0)).join(' ')}\n`,
      );
    }
  } finally {
    worker.shutdown();
    await running;
    await env.teardown();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
