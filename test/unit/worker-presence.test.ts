import type { Client } from '@temporalio/client';
import { noWorkerPolls, pollFreshMs, workerPresence } from '../../client/worker-presence';
import { isKnownStartable, isStartable, refusedStartMessage, StartableQueues, startableWithoutAskingMs } from '../../client/start-needs-worker';

const now = Date.parse('2026-01-01T12:00:00.000Z');

/** A client whose DescribeTaskQueue answers pollers last seen `agesMs` ago. */
function clientWithPollers(...agesMs: number[]): Client {
  const pollers = agesMs.map((age) => ({ lastAccessTime: { seconds: Math.floor((now - age) / 1000), nanos: ((now - age) % 1000) * 1e6 } }));
  return { options: { namespace: 'default' }, workflowService: { describeTaskQueue: async () => ({ pollers }) } } as unknown as Client;
}

describe('workerPresence', () => {
  it('a poll within the last minute or so counts as a worker that polls', async () => {
    expect(await workerPresence(clientWithPollers(90_000, 20_000), 'q', now)).toEqual({ taskQueue: 'q', polled: true, lastSeen: '2026-01-01T11:59:40.000Z' });
  });

  it('only older polls: no worker polls, and the last one is named', async () => {
    const presence = await workerPresence(clientWithPollers(pollFreshMs + 5_000), 'q', now);
    expect(presence).toMatchObject({ polled: false, lastSeen: '2026-01-01T11:58:40.000Z' });
    expect(noWorkerPolls(presence, now)).toBe('no worker polls task queue q (last seen 2026-01-01T11:58:40.000Z, 80 s ago)');
  });

  it('no pollers at all: none seen in the last five minutes', async () => {
    const presence = await workerPresence(clientWithPollers(), 'q', now);
    expect(presence).toEqual({ taskQueue: 'q', polled: false, lastSeen: null });
    expect(noWorkerPolls(presence, now)).toBe('no worker polls task queue q (none seen in the last 5 minutes)');
  });
});

describe('a start on a task queue', () => {
  it('goes ahead while a worker polled the queue in the last five minutes, also one polling no more (a restart)', () => {
    expect(isStartable({ taskQueue: 'q', polled: true, lastSeen: '2026-01-01T11:59:40.000Z' })).toBe(true);
    expect(isStartable({ taskQueue: 'q', polled: false, lastSeen: '2026-01-01T11:56:00.000Z' })).toBe(true);
  });

  it('is refused on a queue no worker has polled, naming the queue and the option that starts anyway', () => {
    const presence = { taskQueue: 'durable-agents', polled: false, lastSeen: null };
    expect(isStartable(presence)).toBe(false);
    expect(refusedStartMessage(presence)).toBe(
      'the run was not started: start a worker on task queue durable-agents, or use the task queue your workers poll ' +
        '(AgentClient.fromEnv() reads TEMPORAL_TASK_QUEUE), or pass allowNoWorker: true to start it anyway (it waits on the queue for a worker)',
    );
  });
});

describe('a start that an earlier start of the client saw a worker for', () => {
  it('goes ahead without asking while that poll is recent enough for the server to count it', () => {
    expect(isKnownStartable(now - 1_000, now)).toBe(true);
    expect(isKnownStartable(now - startableWithoutAskingMs + 1, now)).toBe(true);
  });

  it('asks again once the poll is older, or when no start saw one', () => {
    expect(isKnownStartable(now - startableWithoutAskingMs, now)).toBe(false);
    expect(isKnownStartable(undefined, now)).toBe(false);
  });

  it('remembers the newest poll a start saw on each queue, and nothing of a queue none polled', () => {
    const known = new StartableQueues();
    known.note({ taskQueue: 'q', polled: true, lastSeen: '2026-01-01T11:59:40.000Z' });
    known.note({ taskQueue: 'q', polled: true, lastSeen: '2026-01-01T11:59:00.000Z' });
    known.note({ taskQueue: 'other', polled: false, lastSeen: null });
    expect(known.lastSeen('q')).toBe(Date.parse('2026-01-01T11:59:40.000Z'));
    expect(known.lastSeen('other')).toBeUndefined();
  });
});
