import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { randomBytes } from 'node:crypto';
import { DeltaTap, HttpDeltaPublisher, deltaPublisherFromEnv, type DeltaSink } from '../../activities/model';
import { isCallSignature } from '../../config/delta-keys';
import type { DeltaBatch, TokenDelta } from '../../contracts/deltas';

const delta = (seq: number): TokenDelta => ({ workflowId: 'w', activityId: '1', attempt: 1, turn: 0, seq, kind: 'text', text: `t${seq}`, at: Date.now() });

function chunk(delta: ChatCompletionChunk.Choice.Delta): ChatCompletionChunk {
  return { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] };
}

describe('HttpDeltaPublisher', () => {
  let server: Server;
  let url: string;
  const received: { authorization: string | undefined; batch: DeltaBatch }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ authorization: req.headers.authorization, batch: JSON.parse(body) as DeltaBatch });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('posts batches in order with the publisher token', async () => {
    const publisher = new HttpDeltaPublisher({ url, token: 'publisher-token-0123456789' });
    for (let i = 0; i < 5; i++) publisher.publish(delta(i));
    await publisher.flush(2_000);
    expect(received.flatMap((r) => r.batch.deltas.map((d) => d.seq))).toEqual([0, 1, 2, 3, 4]);
    expect(received[0]?.authorization).toBe('Bearer publisher-token-0123456789');
    expect(publisher.stats).toMatchObject({ published: 5, sent: 5, dropped: 0 });
  });

  it("carries workers' announcements of new events in its batches: one per run, its newest seq", async () => {
    received.length = 0;
    const publisher = new HttpDeltaPublisher({ url, intervalMs: 10_000 });
    publisher.announce({ workflowId: 'a', lastSeq: 3 });
    publisher.announce({ workflowId: 'b', lastSeq: 1 });
    publisher.announce({ workflowId: 'a', lastSeq: 7 });
    publisher.publish(delta(0));
    await publisher.flush(2_000);
    expect(received).toHaveLength(1);
    expect(received[0]?.batch.events).toEqual([
      { workflowId: 'a', lastSeq: 7 },
      { workflowId: 'b', lastSeq: 1 },
    ]);
    expect(received[0]?.batch.deltas.map((d) => d.seq)).toEqual([0]);
    // Announcements alone are sent too.
    publisher.announce({ workflowId: 'c', lastSeq: 2 });
    await publisher.flush(2_000);
    expect(received[1]?.batch).toMatchObject({ deltas: [], events: [{ workflowId: 'c', lastSeq: 2 }] });
  });

  it('signs each model call of a batch once with its signing key: the run, its execution, the activity and the attempt', async () => {
    received.length = 0;
    const key = { id: 'k1', key: randomBytes(32) };
    const publisher = new HttpDeltaPublisher({ url, signingKey: key, intervalMs: 10_000 });
    const call = { workflowId: 'w', runId: 'r1', activityId: '1', attempt: 1 };
    publisher.publish({ ...delta(0), runId: 'r1' });
    publisher.publish({ ...delta(1), runId: 'r1' });
    publisher.publish({ ...delta(0), runId: 'r1', attempt: 2 });
    publisher.publish(delta(5));
    await publisher.flush(2_000);
    const signatures = received[0]?.batch.signatures ?? [];
    expect(signatures.map(({ attempt, keyId }) => ({ attempt, keyId }))).toEqual([
      { attempt: 1, keyId: 'k1' },
      { attempt: 2, keyId: 'k1' },
    ]);
    expect(signatures.every((s) => isCallSignature(key.key, s, s.signature))).toBe(true);
    expect(isCallSignature(key.key, { ...call, attempt: 2 }, (signatures[0] as { signature: string }).signature)).toBe(false);
  });

  it('signs with the first key of DURABLE_AGENTS_DELTAS_KEYS, and names a malformed entry', () => {
    const keys = `new:${randomBytes(32).toString('base64')},old:${randomBytes(32).toString('base64')}`;
    expect(deltaPublisherFromEnv({ DURABLE_AGENTS_DELTAS_URL: url, DURABLE_AGENTS_DELTAS_KEYS: keys })).toBeInstanceOf(HttpDeltaPublisher);
    expect(() => deltaPublisherFromEnv({ DURABLE_AGENTS_DELTAS_URL: url, DURABLE_AGENTS_DELTAS_KEYS: 'short:c2VjcmV0' })).toThrow('DURABLE_AGENTS_DELTAS_KEYS (id:base64key,...) entry 1: key: a key is 32 bytes');
    expect(() => deltaPublisherFromEnv({ DURABLE_AGENTS_DELTAS_URL: url, DURABLE_AGENTS_DELTAS_KEYS: `a:${randomBytes(32).toString('base64')},a:${randomBytes(32).toString('base64')}` })).toThrow('delta key id "a" is used twice');
  });

  it('drops (and counts) what does not fit its buffer, and what an absent server cannot take, without throwing', async () => {
    const bounded = new HttpDeltaPublisher({ url, maxBuffered: 3, intervalMs: 10_000 });
    for (let i = 0; i < 10; i++) bounded.publish(delta(i));
    expect(bounded.stats.dropped).toBe(7);
    await bounded.flush(2_000);
    expect(bounded.stats.sent).toBe(3);

    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const absent = new HttpDeltaPublisher({ url: `http://127.0.0.1:${port}/api/deltas` });
    expect(() => absent.publish(delta(0))).not.toThrow();
    await absent.flush(2_000);
    expect(absent.stats).toMatchObject({ sent: 0, dropped: 1, failedPosts: 1 });
  });
});

describe('DeltaTap', () => {
  it('numbers text and tool-argument fragments and names the call once known', () => {
    const seen: TokenDelta[] = [];
    const tap = new DeltaTap({ publish: (d) => seen.push(d) }, { workflowId: 'w', activityId: '3', attempt: 2, turn: 4 });
    tap.add(chunk({ content: 'Hel' }));
    tap.add(chunk({ content: 'lo' }));
    tap.add(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'add', arguments: '' } }] }));
    tap.add(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] }));
    expect(seen.map((d) => [d.seq, d.kind, d.text])).toEqual([
      [0, 'text', 'Hel'],
      [1, 'text', 'lo'],
      [2, 'tool-args', ''],
      [3, 'tool-args', '{"a":1}'],
    ]);
    expect(seen[3]).toMatchObject({ workflowId: 'w', activityId: '3', attempt: 2, turn: 4, callIndex: 0, toolCallId: 'call_1', toolName: 'add' });
    expect(seen[3]).not.toHaveProperty('runId');
  });

  it("tags every delta with the run's execution when it is known, for the signature", () => {
    const seen: TokenDelta[] = [];
    const tap = new DeltaTap({ publish: (d) => seen.push(d) }, { workflowId: 'w', runId: 'r1', activityId: '3', attempt: 1 });
    tap.add(chunk({ content: 'Hi' }));
    expect(seen[0]).toMatchObject({ workflowId: 'w', runId: 'r1', activityId: '3', attempt: 1 });
  });

  it('never lets a broken sink fail the call', async () => {
    const broken: DeltaSink = {
      publish: () => {
        throw new Error('down');
      },
      flush: () => Promise.reject(new Error('down')),
    };
    const tap = new DeltaTap(broken, { workflowId: 'w', activityId: '1', attempt: 1 });
    expect(() => tap.add(chunk({ content: 'x' }))).not.toThrow();
    await expect(tap.flush()).resolves.toBeUndefined();
  });
});
