import { mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../../client/agent-client';
import type { RunEvent } from '../../contracts';
import { startDevServer, type DevServer } from '../../worker/dev-server';
import { cleanUpAll, childWorkerEnv, startChildWorker, type ChildWorker } from '../support/child-worker';
import { readSideEffects, sideEffectCounts } from '../support/file-side-effects';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { quietRuntime, uniqueTaskQueue } from '../support/test-env';
import { waitFor } from '../support/wait';

/** A loopback port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

const serverLog: string[] = [];
let server: DevServer | undefined;
const connections: Connection[] = [];
const workers: ChildWorker[] = [];

async function connect(address: string, taskQueue: string): Promise<AgentClient> {
  const connection = await Connection.connect({ address });
  connections.push(connection);
  return new AgentClient(new Client({ connection, namespace: 'default' }), taskQueue);
}

afterAll(() =>
  cleanUpAll(
    () => Promise.all(workers.map((w) => w.stop())),
    () => Promise.all(connections.map((c) => c.close())),
    () => server?.stop(),
  ),
);

describe('durability across a server restart', () => {
  it('a run survives its dev server (SQLite) going down and coming back, with every side effect once', async () => {
    quietRuntime();
    const [port, uiPort] = [await freePort(), await freePort()];
    const dbFile = join(mkdtempSync(join(tmpdir(), 'temporal-db-')), 'dev.sqlite');
    const serverOptions = { port, uiPort, dbFile, reuseExisting: false, log: (line: string) => serverLog.push(line) };
    server = await startDevServer(serverOptions);

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

    // Take the server down while the sleep runs: a and b are done, c, d and e not started.
    await waitFor('the sleep call to start', async () => {
      const { events } = await agents.events(workflowId, 0, 1000);
      return events.find((e) => e.type === 'tool_call' && e.name === 'sleep');
    });
    await server.stop();
    expect(sideEffectCounts(sideEffectFile)).toEqual({ a: 1, b: 1 });
    server = await startDevServer(serverOptions);
    expect(server.owned).toBe(true);

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

    const { events } = await agents.events(workflowId, 0, 1000);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
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
