/**
 * The pure parts of live fan-out across API servers: the Redis stream layout, gathering a run's
 * current model call from its newest entries, the delta store's order and duplicates, publisher
 * scopes, and hubs of one process joined by the in-process broker (no Redis, no Temporal).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AgentClient } from '../../client/agent-client';
import type { EventPage } from '../../contracts';
import type { TokenDelta } from '../../contracts/deltas';
import { authenticate, tokenGrantSchema } from '../../server/auth';
import { ApiError } from '../../server/errors';
import { LiveHub } from '../../server/live';
import { DeltaStore } from '../../server/live/delta-store';
import type { FeedItem } from '../../server/live/feed-item';
import { InProcessLiveBus, messagesByRun } from '../../server/live/live-broker';
import { checkPublisherScope, runOutsideScope } from '../../server/live/publisher-scope';
import { CurrentCallCollector, decodeEntry, entryFields, parseReadReply, runStreamKey, workflowIdOfKey } from '../../server/live/redis-stream-wire';

const d = (extra: Partial<TokenDelta>): TokenDelta => ({ workflowId: 'w', activityId: '1', attempt: 1, turn: 0, seq: 0, kind: 'text', text: 'x', at: 0, ...extra });

describe('redis stream layout', () => {
  it('round-trips a message through entry fields', () => {
    const message = { deltas: [d({ seq: 0, text: 'Hel' }), d({ seq: 1, text: 'lo' })], lastSeq: 12 };
    expect(decodeEntry(entryFields('server-a', message))).toEqual({ origin: 'server-a', message });
    expect(entryFields('server-a', { deltas: [] })).toEqual(['o', 'server-a']);
    expect(decodeEntry(['o', 'server-a'])).toEqual({ origin: 'server-a', message: { deltas: [] } });
  });

  it('refuses entries that are not messages (what sits in a shared broker is input like any other)', () => {
    expect(decodeEntry(['d', '[]'])).toBeUndefined();
    expect(decodeEntry(['o', 'a', 'd', 'not json'])).toBeUndefined();
    expect(decodeEntry(['o', 'a', 'd', JSON.stringify([{ workflowId: 'w' }])])).toBeUndefined();
    expect(decodeEntry(['o', 'a', 'e', '-1'])).toBeUndefined();
    expect(decodeEntry(['o', 'a', 'e', 'seven'])).toBeUndefined();
  });

  it('names one stream per run under the prefix, and reads the run back from the key', () => {
    const key = runStreamKey('durable-agents:live:default:', 'run:1');
    expect(key).toBe('durable-agents:live:default:run:1');
    expect(workflowIdOfKey('durable-agents:live:default:', key)).toBe('run:1');
    expect(workflowIdOfKey('durable-agents:live:other:', key)).toBeUndefined();
  });

  it('reads XREAD replies as RESP2 arrays, RESP3 maps or objects, and a timeout', () => {
    const entries = [['1-0', ['o', 'a']]];
    const expected = [{ key: 'k', entries: [{ id: '1-0', fields: ['o', 'a'] }] }];
    expect(parseReadReply([['k', entries]])).toEqual(expected);
    expect(parseReadReply(new Map([['k', entries]]))).toEqual(expected);
    expect(parseReadReply({ k: entries })).toEqual(expected);
    expect(parseReadReply(null)).toEqual([]);
  });

  it('gathers the current model call from entries read newest first, and stops at an older call', () => {
    const collector = new CurrentCallCollector();
    // Newest entry first: attempt 2 of call 5, then its older deltas, then attempt 1 (replaced).
    expect(collector.add([d({ activityId: '5', attempt: 2, seq: 2 }), d({ activityId: '5', attempt: 2, seq: 3 })])).toBe(false);
    expect(collector.add([d({ activityId: '5', attempt: 2, seq: 1 })])).toBe(false);
    expect(collector.add([d({ activityId: '5', attempt: 1, seq: 9 }), d({ activityId: '5', attempt: 2, seq: 0 })])).toBe(true);
    expect(collector.deltas().map((x) => `${x.attempt}:${x.seq}`)).toEqual(['2:0', '2:1', '2:2', '2:3']);
    const next = new CurrentCallCollector();
    next.add([d({ activityId: '7', seq: 0 })]);
    expect(next.add([d({ activityId: '6', seq: 4 })])).toBe(true);
    expect(next.deltas().map((x) => x.activityId)).toEqual(['7']);
  });

  it('groups a post by run: deltas in order, the newest seq announced', () => {
    const messages = messagesByRun([d({ workflowId: 'a', seq: 0 }), d({ workflowId: 'b' }), d({ workflowId: 'a', seq: 1 })], [
      { workflowId: 'a', lastSeq: 4 },
      { workflowId: 'a', lastSeq: 3 },
      { workflowId: 'c', lastSeq: 1 },
    ]);
    expect([...messages.keys()]).toEqual(['a', 'b', 'c']);
    expect(messages.get('a')).toEqual({ deltas: [d({ workflowId: 'a', seq: 0 }), d({ workflowId: 'a', seq: 1 })], lastSeq: 4 });
    expect(messages.get('c')).toEqual({ deltas: [], lastSeq: 1 });
  });
});

describe('delta store order', () => {
  it('keeps a call\'s deltas in seq order however they arrive', () => {
    const store = new DeltaStore();
    for (const seq of [0, 1, 4, 2, 5, 3]) store.add(d({ seq, text: String(seq) }));
    expect(store.current('w').map((x) => x.text).join('')).toBe('012345');
  });

  it('keeps each delta once: one that arrives twice is a duplicate', () => {
    const store = new DeltaStore();
    expect(store.add(d({ seq: 0 }))).toBe('kept');
    expect(store.add(d({ seq: 1 }))).toBe('kept');
    expect(store.add(d({ seq: 0 }))).toBe('duplicate');
    expect(store.add(d({ seq: 1 }))).toBe('duplicate');
    expect(store.current('w')).toHaveLength(2);
  });
});

describe('publisher scopes', () => {
  const facts = new Map([
    ['mine', { open: true, taskQueue: 'billing' }],
    ['gone', undefined],
    ['theirs', { open: true, taskQueue: 'support' }],
  ]);

  it('finds the first existing run on a queue outside the scope', () => {
    expect(runOutsideScope(['billing'], facts)).toEqual({ workflowId: 'theirs', taskQueue: 'support' });
    expect(runOutsideScope(['billing', 'support'], facts)).toBeUndefined();
    expect(runOutsideScope(['billing'], new Map([['mine', { open: true, taskQueue: 'billing' }]]))).toBeUndefined();
  });

  it('refuses a scoped publisher\'s post for another queue with forbidden, naming run and queues', () => {
    let error: unknown;
    try {
      checkPublisherScope({ name: 'billing-worker', role: 'publisher', taskQueues: ['billing'] }, facts);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).type).toBe('forbidden');
    expect((error as ApiError).message).toBe('publisher "billing-worker" may publish for runs on task queue "billing"; run "theirs" is on "support"');
    expect(() => checkPublisherScope({ name: 'any-worker', role: 'publisher' }, facts)).not.toThrow();
  });

  it('scopes only publisher tokens, and carries the scope to the principal', () => {
    const grant = { name: 'w', role: 'publisher', token: 'publisher-token-0123456789', taskQueues: ['billing'] };
    expect(tokenGrantSchema.parse(grant).taskQueues).toEqual(['billing']);
    expect(tokenGrantSchema.safeParse({ ...grant, role: 'viewer' }).success).toBe(false);
    expect(authenticate({ localDev: false, tokens: [tokenGrantSchema.parse(grant)] }, grant.token)).toEqual({ name: 'w', role: 'publisher', taskQueues: ['billing'] });
  });
});

/** A client with one open run `w` on task queue `queue` (any other run does not exist), its log empty. */
function fakeAgents(): AgentClient {
  const client = {
    options: { namespace: 'default' },
    withAbortSignal: <T>(_signal: AbortSignal, fn: () => Promise<T>) => fn(),
    workflow: {
      getHandle: (id: string) => ({
        describe: async () => {
          if (id !== 'w') throw new WorkflowNotFoundError('not found', id, undefined);
          return { status: { name: 'RUNNING' }, taskQueue: 'queue' };
        },
      }),
    },
  };
  const agents = {
    client,
    events: async (_id: string, after: number): Promise<EventPage> => ({ events: [], nextAfterSeq: after, status: 'running' }),
  };
  return agents as unknown as AgentClient;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('hubs joined by a broker', () => {
  const hubs: LiveHub[] = [];
  afterEach(async () => {
    await Promise.all(hubs.splice(0).map((hub) => hub.close()));
  });

  function servers(n: number): LiveHub[] {
    const bus = new InProcessLiveBus();
    const made = Array.from({ length: n }, () => new LiveHub(fakeAgents(), { broker: bus.connect(), feed: { maxPollMs: 60_000 } }));
    hubs.push(...made);
    return made;
  }

  function deltasOf(hub: LiveHub, workflowId = 'w'): TokenDelta[] {
    const seen: TokenDelta[] = [];
    hub.subscribe(workflowId, 0, (item: FeedItem) => {
      if (item.type === 'delta') seen.push(item.delta);
    });
    return seen;
  }

  it('sends deltas posted to one server to the subscribers of the others, once each', async () => {
    const [a, b, c] = servers(3) as [LiveHub, LiveHub, LiveHub];
    const onA = deltasOf(a);
    const onB = deltasOf(b);
    const onC = deltasOf(c);
    await sleep(0);
    await a.takePosted({ deltas: [d({ seq: 0, text: 'Hel' }), d({ seq: 1, text: 'lo' })] });
    await b.takePosted({ deltas: [d({ seq: 2, text: '!' })] });
    for (const seen of [onA, onB, onC]) expect(seen.map((x) => x.text).join('')).toBe('Hello!');
    expect(c.stats().deltasFromBroker).toBe(3);
  });

  it('shows a server that starts following mid-call the text so far', async () => {
    const [a, b] = servers(2) as [LiveHub, LiveHub];
    await a.takePosted({ deltas: [d({ seq: 0, text: 'so ' }), d({ seq: 1, text: 'far' })] });
    const onB = deltasOf(b);
    await sleep(0);
    expect(onB.map((x) => x.text).join('')).toBe('so far');
    expect(b.currentDeltas('w').map((x) => x.text).join('')).toBe('so far');
  });

  it('wakes the run\'s feeds on every server when a worker announces new events, and only for runs that exist', async () => {
    const [a, b] = servers(2) as [LiveHub, LiveHub];
    deltasOf(b);
    await sleep(0);
    await a.takePosted({ deltas: [], events: [{ workflowId: 'w', lastSeq: 3 }, { workflowId: 'made-up', lastSeq: 1 }] });
    expect(b.stats().announcementsFromBroker).toBe(1);
    expect(b.stats().announcementsWaking).toBe(0);
    expect(a.stats().broker?.published).toBe(1);
  });

  it('refuses a scoped publisher\'s post for a run on another task queue, and sends nothing on', async () => {
    const [a, b] = servers(2) as [LiveHub, LiveHub];
    const onB = deltasOf(b);
    await sleep(0);
    await expect(a.takePosted({ deltas: [d({})] }, { name: 'p', role: 'publisher', taskQueues: ['elsewhere'] })).rejects.toMatchObject({ type: 'forbidden' });
    await a.takePosted({ deltas: [d({ text: 'ok' })] }, { name: 'p', role: 'publisher', taskQueues: ['queue'] });
    expect(onB.map((x) => x.text)).toEqual(['ok']);
  });

  it('follows a run on the broker only while it has subscribers here', async () => {
    const [a] = servers(1) as [LiveHub];
    const sub = a.subscribe('w', 0, () => undefined);
    await sleep(0);
    expect(a.stats().broker?.following).toBe(1);
    sub.close();
    expect(a.stats().broker?.following).toBe(0);
  });
});
