import type { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { PresenceCache } from '../../client/worker-presence';
import { noWorkerRead } from '../../client/no-worker-reads';
import { recordedChildRuns } from '../../client/recorded-children';
import { recordedWaits } from '../../client/recorded-waits';
import type { RecordedRunTree } from '../../client/run-tree';

const now = Date.parse('2026-01-01T12:00:00.000Z');

describe('noWorkerRead: whether a read goes to the run\'s history', () => {
  it('no worker polls the queue: at once, naming the queue and the last poll', () => {
    expect(noWorkerRead('run-1', { taskQueue: 'q', polled: false, lastSeen: '2026-01-01T11:58:40.000Z' }, false, now)).toEqual({
      presence: { taskQueue: 'q', polled: false, lastSeen: '2026-01-01T11:58:40.000Z' },
      reason: 'no worker polls task queue q (last seen 2026-01-01T11:58:40.000Z, 80 s ago)',
    });
  });

  it('a worker polls: the run is asked first', () => {
    expect(noWorkerRead('run-1', { taskQueue: 'q', polled: true, lastSeen: '2026-01-01T11:59:50.000Z' }, false, now)).toBeUndefined();
  });

  it('a worker polls but the run went unanswered: the history, saying when the queue was last polled', () => {
    expect(noWorkerRead('run-1', { taskQueue: 'q', polled: true, lastSeen: '2026-01-01T11:59:50.000Z' }, true, now)?.reason).toBe(
      'no worker answered run run-1 in time (task queue q, last polled 2026-01-01T11:59:50.000Z)',
    );
  });
});

describe('recordedChildRuns: the sub-agent runs a history started', () => {
  const started = (workflowId: string): temporal.api.history.v1.IHistoryEvent => ({ startChildWorkflowExecutionInitiatedEventAttributes: { workflowId } });

  it('each with the call that started it, the last segment of its id, in the order started', () => {
    expect(recordedChildRuns([{}, started('sub-e1/pay'), {}, started('sub-e2/pay'), started('sub-e2/ask')])).toEqual([
      { workflowId: 'sub-e1/pay', toolCallId: 'pay' },
      { workflowId: 'sub-e2/pay', toolCallId: 'pay' },
      { workflowId: 'sub-e2/ask', toolCallId: 'ask' },
    ]);
  });
});

describe('recordedWaits: the runs of a recorded tree that wait for a person', () => {
  const run = (workflowId: string, status: string, path: string[], children: RecordedRunTree[] = []): RecordedRunTree => ({ workflowId, agent: 'a', status, path, children });

  it('the top run first, then depth first; runs recorded otherwise are left out', () => {
    const tree = run('top', 'awaiting', [], [run('c1', 'running', ['x'], [run('g1', 'awaiting', ['x', 'y'])]), run('c2', 'awaiting', ['z'])]);
    expect(recordedWaits(tree)).toEqual([
      { workflowId: 'top', agent: 'a', path: [] },
      { workflowId: 'g1', agent: 'a', path: ['x', 'y'] },
      { workflowId: 'c2', agent: 'a', path: ['z'] },
    ]);
  });

  it('nothing waits: none', () => {
    expect(recordedWaits(run('top', 'completed', [], [run('c1', 'running', ['x'])]))).toEqual([]);
  });
});

describe('PresenceCache: what reads cost the server', () => {
  /** A client whose DescribeTaskQueue answers a poll 1 s old and counts its calls. */
  function countingClient(): { client: Client; asked: string[] } {
    const asked: string[] = [];
    const client = {
      options: { namespace: 'default' },
      workflowService: {
        describeTaskQueue: async (request: { taskQueue: { name: string } }) => {
          asked.push(request.taskQueue.name);
          return { pollers: [{ lastAccessTime: { seconds: Math.floor((Date.now() - 1000) / 1000), nanos: 0 } }] };
        },
      },
    } as unknown as Client;
    return { client, asked };
  }

  it('asks each task queue at most once per 2 s, and each run its task queue once', async () => {
    const { client, asked } = countingClient();
    const cache = new PresenceCache(client);
    const runsAsked: string[] = [];
    const queueOf = (run: string, queue: string) => async () => {
      runsAsked.push(run);
      return queue;
    };
    const t = Date.now();
    await cache.ofRun('a', queueOf('a', 'q1'), t);
    await cache.ofRun('b', queueOf('b', 'q1'), t + 10);
    await cache.ofRun('a', queueOf('a', 'q1'), t + 1_000);
    expect(asked).toEqual(['q1']);
    expect(runsAsked).toEqual(['a', 'b']);
    expect(await cache.ofRun('a', queueOf('a', 'q1'), t + PresenceCache.ttlMs + 1)).toMatchObject({ taskQueue: 'q1', polled: true });
    expect(asked).toEqual(['q1', 'q1']);
    await cache.ofRun('c', queueOf('c', 'q2'), t + PresenceCache.ttlMs + 2);
    expect(asked).toEqual(['q1', 'q1', 'q2']);
  });
});
