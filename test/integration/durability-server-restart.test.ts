import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../../client/agent-client';
import type { RunEvent } from '../../contracts';
import { startDevServer, type DevServer } from '../../testing/dev-server';
import { cleanUpAll, childWorkerEnv, startChildWorker, type ChildWorker } from '../support/child-worker';
import { agentctlNodeArgs } from '../support/agentctl-build';
import { readSideEffects, sideEffectCounts } from '../support/file-side-effects';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { quietRuntime, uniqueTaskQueue } from '../support/test-env';
import { waitFor } from '../support/wait';
import { freeLoopbackPort } from '../../testing/dev-server-port';
import { testTempDir } from '../support/temp-dir';

const serverLog: string[] = [];
let server: DevServer | undefined;
const connections: Connection[] = [];
const workers: ChildWorker[] = [];
const children: ChildProcess[] = [];

async function connect(address: string, taskQueue: string): Promise<AgentClient> {
  const connection = await Connection.connect({ address });
  connections.push(connection);
  return new AgentClient(new Client({ connection, namespace: 'default' }), taskQueue);
}

afterAll(() =>
  cleanUpAll(
    () => Promise.all(workers.map((w) => w.stop())),
    () => Promise.resolve(children.forEach((c) => c.kill('SIGKILL'))),
    () => Promise.all(connections.map((c) => c.close())),
    () => server?.stop(),
  ),
);

describe('durability across a server restart', () => {
  it('a run survives its dev server (SQLite) going down and coming back, with every side effect once', async () => {
    quietRuntime();
    const [port, uiPort, httpPort, metricsPort] = [await freeLoopbackPort(), await freeLoopbackPort(), await freeLoopbackPort(), await freeLoopbackPort()];
    const dbFile = join(testTempDir('temporal-db-'), 'dev.sqlite');
    // Every port pinned, as a developer pins them beside other servers; they come back on the same ports.
    const serverOptions = { port, uiPort, httpPort, metricsPort, dbFile, reuseExisting: false, log: (line: string) => serverLog.push(line) };
    server = await startDevServer(serverOptions);
    expect(serverLog).toContain(`Temporal dev server ready at 127.0.0.1:${port}; Web UI at http://127.0.0.1:${uiPort}; HTTP API at http://127.0.0.1:${httpPort}; metrics at http://127.0.0.1:${metricsPort}/metrics`);
    const pinned = async (): Promise<[number, number]> => [
      (await fetch(`http://127.0.0.1:${httpPort}/api/v1/namespaces/default`)).status,
      (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status,
    ];
    expect(await pinned()).toEqual([200, 200]);

    const taskQueue = uniqueTaskQueue('durability-restart');
    const { env: workerEnv, sideEffectFile } = childWorkerEnv(server.address, 'default', taskQueue);
    workers.push(await startChildWorker(workerEnv));
    let agents = await connect(server.address, taskQueue);

    const { workflowId } = await agents.start(
      scriptedInput([
        callStep({ name: 'record', args: { label: 'a' } }, { name: 'record', args: { label: 'b' } }),
        callStep({ name: 'sleep', args: { ms: 4_000 } }),
        callStep({ name: 'record', args: { label: 'c', delayMs: 500 } }, { name: 'record', args: { label: 'd' } }),
        callStep({ name: 'record', args: { label: 'e' } }),
        finalStep('outlived the server'),
      ]),
    );

    // An operator follows the run with the official ops CLI across the outage.
    const follower = spawn(process.execPath, [...agentctlNodeArgs(), 'events', workflowId, '--follow', '--json'], {
      cwd: resolve(__dirname, '../..'),
      env: { ...process.env, TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: 'default', TEMPORAL_TASK_QUEUE: taskQueue },
    });
    let followed = '';
    let followErr = '';
    follower.stdout.on('data', (d: Buffer) => (followed += d.toString()));
    follower.stderr.on('data', (d: Buffer) => (followErr += d.toString()));
    const followExit = new Promise<number | null>((r) => follower.on('exit', (code) => r(code)));
    children.push(follower);

    // Take the server down while the sleep runs: a and b are done, c, d and e not started.
    await waitFor('the sleep call to start', async () => {
      const { events } = await agents.events(workflowId, 0, 1000);
      return events.find((e) => e.type === 'tool_call' && e.name === 'sleep');
    });
    await waitFor('agentctl to print the sleep call', () => Promise.resolve(followed.includes('"sleep"') ? true : undefined));
    // Two sessions take a message every second through the outage: one catches up on what it
    // missed (the default window, an hour), one skips what is older than Temporal's shortest
    // window (10 s).
    const ticking = await Promise.all(
      (['catch-up', 'skip'] as const).map(async (rule) => {
        const session = agents.session(`restart-${rule}-${taskQueue.slice(-8)}`);
        await session.open({ agent: 'scripted' });
        await session.schedules.create('tick', {
          every: '1s',
          ...(rule === 'skip' ? { catchupWindow: 'skip' as const } : {}),
          message: { content: 'tick', plannerOptions: { steps: [finalStep('tick')] } },
        });
        return { rule, sessionId: session.sessionId };
      }),
    );
    for (const { sessionId } of ticking) {
      const schedule = agents.session(sessionId).schedules.get('tick');
      await waitFor('two firings', async () => ((await schedule.describe()).firings >= 2 ? true : undefined));
    }
    await server.stop();
    const down = Date.now();
    expect(sideEffectCounts(sideEffectFile)).toEqual({ a: 1, b: 1 });
    // Long enough that the client's own gRPC retries give up and agentctl has to reconnect.
    await waitFor('agentctl to notice the outage', () => Promise.resolve(/reconnecting in/.test(followErr) ? true : undefined), 60_000);
    // Down for longer than the skipping schedule's window.
    await new Promise((r) => setTimeout(r, Math.max(0, 14_000 - (Date.now() - down))));
    server = await startDevServer(serverOptions);
    expect(server.owned).toBe(true);
    expect(await pinned()).toEqual([200, 200]);

    // The worker normally rides out the outage (its polls retry); replace it if it did not.
    if (!workers.some((w) => w.alive())) workers.push(await startChildWorker(workerEnv));
    agents = await connect(server.address, taskQueue);
    const result = await agents.result(workflowId);

    expect(result).toMatchObject({ status: 'completed', final: { text: 'outlived the server' }, iterations: 4 });
    expect(sideEffectCounts(sideEffectFile)).toEqual({ a: 1, b: 1, c: 1, d: 1, e: 1 });
    expect(new Set(readSideEffects(sideEffectFile).map((e) => e.key)).size).toBe(5);

    // History: every record call completed in its first attempt.
    const history = await agents.client.workflow.getHandle(workflowId).fetchHistory();
    const recordScheduled = new Set<string>();
    const startedAttempts: number[] = [];
    for (const e of history.events ?? []) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name === 'scripted/record') recordScheduled.add(String(e.eventId));
      const started = e.activityTaskStartedEventAttributes;
      if (started && recordScheduled.has(String(started.scheduledEventId))) startedAttempts.push(started.attempt ?? 0);
    }
    expect(startedAttempts).toEqual([1, 1, 1, 1, 1]);

    await expectScheduledOnce(agents, ticking);

    const { events } = await agents.events(workflowId, 0, 1000);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    // agentctl --follow reconnected after the outage and printed every event once, in order.
    const followCode = await followExit;
    if (followCode !== 0) console.log(followErr);
    expect(followCode).toBe(0);
    expect(followErr).toMatch(/the Temporal server is unreachable .*; reconnecting in/);
    const printedSeqs = followed
      .split('\n')
      .filter((l) => l.trim().startsWith('{'))
      .map((l) => (JSON.parse(l) as { seq?: number }).seq)
      .filter((seq) => seq !== undefined);
    expect(printedSeqs).toEqual(events.map((e) => e.seq));
    const results = events.filter((e): e is Extract<RunEvent, { type: 'tool_result' }> => e.type === 'tool_result');
    expect(results.map((e) => [e.name, e.status])).toEqual([
      ['record', 'ok'],
      ['record', 'ok'],
      ['sleep', 'ok'],
      ['record', 'ok'],
      ['record', 'ok'],
      ['record', 'ok'],
    ]);
  });
});

/**
 * After the restart: each schedule fires on, every firing it took became exactly one run of its
 * session under the firing's message id (none lost, none twice), and what it missed is as its rule
 * declares: the catch-up schedule missed nothing, the skipping one counted the firings older than
 * its window as missed.
 */
async function expectScheduledOnce(agents: AgentClient, ticking: { rule: 'catch-up' | 'skip'; sessionId: string }[]): Promise<void> {
  for (const { rule, sessionId } of ticking) {
    const session = agents.session(sessionId);
    const schedule = session.schedules.get('tick');
    const before = (await schedule.describe()).firings;
    await waitFor(`the ${rule} schedule to fire twice after the restart`, async () => ((await schedule.describe()).firings >= before + 2 ? true : undefined), 90_000);
    await schedule.pause('counted');
    const spent = await waitFor(
      `the ${rule} schedule's firings to be delivered`,
      async () => {
        const d = await schedule.describe();
        const delivered = await Promise.all(d.recentFirings.map(async (f) => (await agents.client.workflow.getHandle(f.workflowId).describe()).status.name));
        return delivered.every((status) => status === 'COMPLETED') ? d : undefined;
      },
      90_000,
    );
    const runs = await waitFor(`the ${rule} session's runs to complete`, async () => {
      const listed = await session.runs();
      return listed.length >= spent.firings && listed.every((r) => r.status === 'completed') ? listed : undefined;
    });
    expect(runs).toHaveLength(spent.firings);
    expect(new Set(runs.map((r) => r.messageId)).size).toBe(spent.firings);
    // The backlog of the outage (14 s of firings) collapsed into at most two deliveries; the rest
    // counted as overlapping, or, for the skipping schedule, those older than 10 s as missed.
    expect(spent.skippedOverlap).toBeGreaterThan(0);
    if (rule === 'catch-up') expect(spent.missedCatchupWindow).toBe(0);
    else expect(spent.missedCatchupWindow).toBeGreaterThan(0);
    await schedule.delete();
    await session.close();
  }
}
