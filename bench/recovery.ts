/**
 * `npm run bench:recovery [-- --runs 10]`: how long runs stall after the worker that has them
 * cached is killed (SIGKILL) while a second worker stands by.
 *
 * Two worker processes serve one task queue; each run waits for a human answer, so no tool is
 * in flight. One worker is killed, every run is answered, and the time from the kill to each
 * run's completion is taken. Runs cached by the survivor finish at once; those cached by the
 * victim wait until their workflow task leaves the dead worker's sticky queue. Measured with
 * the plugin's sticky timeout and with the SDK's default (10 s), in one run of the script.
 * An answer the client refuses because no worker answered its probe in time (NoWorkerError: a
 * run the dead worker had cached, right after the kill) is sent as the `answer` signal instead, as
 * agentctl does, and counted as queued.
 * Figures only, never assertions (shared machines are noisy).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stickyTaskTimeout } from '../worker/plugin';
import { provisionTemporalCli } from '../testing/temporal-cli';
import { startChildWorker, childWorkerEnv, type ChildWorker } from '../test/support/child-worker';
import { agentClient, buildTestBundle, createTestEnv, uniqueTaskQueue } from '../test/support/test-env';
import { finalStep, scriptedInput } from '../test/support/scripts';
import type { ScriptStep } from '../workflows/planners/scripted';
import { waitFor } from '../test/support/wait';
import { NoWorkerError } from '../client/agent-client';
import { percentile } from './stats';

type Env = Awaited<ReturnType<typeof createTestEnv>>;

async function measure(env: Env, runs: number, workerOptions: object): Promise<{ ms: number[]; queued: number }> {
  const taskQueue = uniqueTaskQueue('recovery');
  const { env: workerEnv } = childWorkerEnv(env.address, env.namespace ?? 'default', taskQueue);
  const workers: ChildWorker[] = await Promise.all([0, 1].map(() => startChildWorker({ ...workerEnv, WORKER_OPTIONS: JSON.stringify(workerOptions) })));
  const agents = agentClient(env, taskQueue);
  try {
    const ask: ScriptStep = { type: 'await', await: { items: [{ kind: 'clarification', id: 'go', question: 'Go on?' }] } };
    const ids = await Promise.all(Array.from({ length: runs }, async () => (await agents.start(scriptedInput([ask, finalStep()]))).workflowId));
    for (const id of ids) await waitFor(`${id} awaiting`, async () => ((await agents.status(id)).status === 'awaiting' ? true : undefined));
    const [victim] = workers;
    if (!victim) throw new Error('no worker');
    await victim.kill9();
    const killedAt = performance.now();
    let queued = 0;
    const ms = await Promise.all(
      ids.map(async (id) => {
        const answer = { kind: 'clarification', itemId: 'go', answer: 'yes' } as const;
        await agents.answer(id, answer).catch(async (err: unknown) => {
          if (!(err instanceof NoWorkerError)) throw err;
          queued++;
          await agents.signal(id, 'answer', answer);
        });
        await agents.result(id);
        return performance.now() - killedAt;
      }),
    );
    return { ms, queued };
  } finally {
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
  const runs = Number(values.runs);
  const cli = provisionTemporalCli();
  if (cli) process.env.TEMPORAL_CLI_PATH = cli.path;
  const dir = join(tmpdir(), `durable-agents-recovery-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const bundlePath = join(dir, 'bundle.js');
  writeFileSync(bundlePath, (await buildTestBundle()).code);
  process.env.DURABLE_AGENTS_TEST_BUNDLE = bundlePath;
  const env = await createTestEnv();
  try {
    const rows: [string, { ms: number[]; queued: number }][] = [];
    for (const [label, options] of [
      [`plugin (sticky ${stickyTaskTimeout})`, {}],
      ['SDK default (sticky 10s)', { stickyQueueScheduleToStartTimeout: '10s' }],
    ] as const) {
      rows.push([label, await measure(env, runs, options)]);
    }
    process.stdout.write(`recovery after a worker kill, ${runs} runs, standby worker running (ms from kill to run completion)\n`);
    for (const [label, { ms, queued }] of rows) {
      const sorted = [...ms].sort((a, b) => a - b);
      process.stdout.write(
        `${label.padEnd(28)} median ${percentile(sorted, 0.5).toFixed(0).padStart(6)}  max ${(sorted.at(-1) ?? 0).toFixed(0).padStart(6)}  queued as signals ${queued}  all ${sorted.map((x) => x.toFixed(0)).join(' ')}\n`,
      );
    }
  } finally {
    await env.teardown();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
