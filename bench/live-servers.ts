/**
 * The live surface on several API server processes sharing one Redis (`npm run bench:live`'s
 * broker scenarios): N servers (server/main.ts with DURABLE_AGENTS_REDIS_URL, as `npm run api`),
 * a worker posting deltas and announcements to the first one, S SSE subscribers spread round
 * robin over the N servers on one run that streams text each turn. Reports missed and duplicated
 * events, delta latency from publish to receipt (direct: subscribers of the server the worker
 * posts to; through the broker: the others), and per-subscriber cost on the servers: CPU time
 * (utime + stime of the server processes while the run streams, divided by the subscribers: it
 * includes each server's one follower and its broker reads) and memory (the servers' resident set
 * with the subscribers connected minus before, divided by the subscribers).
 */
import { readFileSync } from 'node:fs';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { AgentClient } from '../client/agent-client';
import type { RunInput } from '../contracts';
import { startApiServerProcess, type ApiServerProcess } from '../test/support/api-server-process';
import { RawSseReader } from '../test/support/raw-sse-reader';
import { startTestRedis } from '../test/support/redis-server';
import { percentile } from './stats';

/** What the bench's main hands over: a worker of `taskQueue` posting to `url`. */
export interface ServersBenchSetup {
  readonly env: TestWorkflowEnvironment;
  readonly taskQueue: string;
  readonly agents: AgentClient;
  readonly viewerToken: string;
  readonly publisherToken: string;
  /** Starts the worker, its deltas publisher posting to `url`; answers it. */
  readonly startWorker: (url: string) => Promise<Worker>;
  readonly input: RunInput;
}

/** One server process's CPU time (ms) and resident set (bytes), from /proc. */
function usage(pid: number): { cpuMs: number; rssBytes: number } {
  try {
    // Fields after the command name (which may hold spaces): utime is the 14th field, stime the 15th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    // Linux reports both in clock ticks of 1/100 s (CLK_TCK).
    return { cpuMs: ticks * 10, rssBytes: Number(rss?.[1] ?? 0) * 1024 };
  } catch {
    return { cpuMs: 0, rssBytes: 0 };
  }
}

const total = (servers: readonly ApiServerProcess[]) =>
  servers.map((s) => usage(s.pid)).reduce((a, b) => ({ cpuMs: a.cpuMs + b.cpuMs, rssBytes: a.rssBytes + b.rssBytes }), { cpuMs: 0, rssBytes: 0 });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const figures = (values: readonly number[]) => (values.length > 0 ? `p50 ${percentile(values, 0.5).toFixed(0)} ms p99 ${percentile(values, 0.99).toFixed(0)} ms (${values.length})` : 'none');

/** Runs the scenario at `count` servers with `subscribers` subscribers, and prints one line. */
export async function measureServers(setup: ServersBenchSetup, count: number, subscribers: number): Promise<void> {
  const redis = await startTestRedis();
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      startApiServerProcess({
        TEMPORAL_ADDRESS: setup.env.address,
        TEMPORAL_NAMESPACE: setup.env.namespace ?? 'default',
        TEMPORAL_TASK_QUEUE: setup.taskQueue,
        DURABLE_AGENTS_TOKENS: `bench:viewer:${setup.viewerToken},worker:publisher:${setup.publisherToken}`,
        DURABLE_AGENTS_TOKENS_FILE: '',
        DURABLE_AGENTS_LOCAL_DEV: '',
        DURABLE_AGENTS_REDIS_URL: redis.url,
      }),
    ),
  );
  const direct = (servers[0] as ApiServerProcess).url;
  const worker = await setup.startWorker(direct);
  const workerRunning = worker.run();
  const urls = servers.map((s) => s.url);
  let next = 0;
  const follow = (workflowId: string, n: number) => Array.from({ length: n }, () => new RawSseReader(workflowId, setup.viewerToken, () => urls[next++ % urls.length] as string));
  try {
    // A first run warms the servers up (their code compiled, their connections made), unmeasured.
    const warmUp = await setup.agents.start(setup.input);
    await Promise.all(follow(warmUp.workflowId, 3 * count).map((r) => r.done));
    await sleep(500);
    const before = total(servers);
    const started = performance.now();
    const { workflowId } = await setup.agents.start(setup.input);
    const readers = follow(workflowId, subscribers);
    while (readers.some((r) => r.firstEventAt === undefined)) await sleep(20);
    const allConnected = Date.now();
    let peakRss = total(servers).rssBytes;
    const sampling = setInterval(() => {
      peakRss = Math.max(peakRss, total(servers).rssBytes);
    }, 100);
    await Promise.all(readers.map((r) => r.done));
    clearInterval(sampling);
    const after = total(servers);
    const log = (await setup.agents.events(workflowId, 0, 1000)).events.map((e) => e.seq);
    let missed = 0;
    let duplicated = 0;
    const viaDirect: number[] = [];
    const viaBroker: number[] = [];
    for (const reader of readers) {
      const seen = new Map<number, number>();
      for (const seq of reader.seqs) seen.set(seq, (seen.get(seq) ?? 0) + 1);
      for (const seq of log) if (!seen.has(seq)) missed += 1;
      for (const n of seen.values()) if (n > 1) duplicated += n - 1;
      // Text deltas published once every subscriber was connected (earlier ones are replayed on join).
      for (const { server, delta, receivedAt } of reader.deltas) {
        if (delta.kind !== 'text' || delta.at < allConnected) continue;
        (server === direct ? viaDirect : viaBroker).push(receivedAt - delta.at);
      }
    }
    const cpuPerSub = (after.cpuMs - before.cpuMs) / subscribers;
    const memPerSub = (peakRss - before.rssBytes) / subscribers / 1024;
    process.stdout.write(
      `${`${count} server${count > 1 ? 's' : ''} (Redis) x ${subscribers} subscribers`.padEnd(34)} events ${log.length}  missed ${missed}  duplicated ${duplicated}; ` +
        `text deltas publish->receipt: all ${figures([...viaDirect, ...viaBroker])}; direct ${figures(viaDirect)}; through the broker ${figures(viaBroker)}; ` +
        `per subscriber on the servers: CPU ${cpuPerSub.toFixed(1)} ms, memory ${memPerSub.toFixed(0)} KB (servers' CPU ${(after.cpuMs - before.cpuMs).toFixed(0)} ms)  ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  } finally {
    worker.shutdown();
    await workerRunning;
    await Promise.all(servers.map((s) => s.stop()));
    await redis.stop();
  }
}
