import { ApplicationFailure } from '@temporalio/common';
import type { Message } from '../../contracts';
import { conversationFor, TranscriptCache, TranscriptEntry, type TranscriptFetcher } from '../../activities/model';
import { chainDigest, emptyDigest, modelCallInputSchema, type ParsedModelCallInput } from '../../workflows/planners/llm';

const run: Message[] = [
  { role: 'user', content: 'quote AAPL' },
  { role: 'assistant', toolCalls: [{ id: 'c1', name: 'get_quote', args: { symbol: 'AAPL' } }] },
  { role: 'tool', toolCallId: 'c1', name: 'get_quote', content: '{"price":1}' },
  { role: 'assistant', toolCalls: [{ id: 'c2', name: 'get_quote', args: { symbol: 'MSFT' } }] },
  { role: 'tool', toolCallId: 'c2', name: 'get_quote', content: '{"price":2}' },
];

function input(baseCount: number, upTo: number, runId = 'r1'): ParsedModelCallInput {
  return modelCallInputSchema().parse({
    workflowId: 'w',
    runId,
    agent: 'watchlist-llm',
    model: 'm',
    turn: 0,
    baseCount,
    baseDigest: chainDigest(emptyDigest, run.slice(0, baseCount)),
    newMessages: run.slice(baseCount, upTo),
    tools: [],
  });
}

function fetcherOver(messages: readonly Message[]): TranscriptFetcher & { calls: [number, number][] } {
  const calls: [number, number][] = [];
  const fetch = async (_run: unknown, from: number, to: number) => {
    calls.push([from, to]);
    return messages.slice(from, to);
  };
  return Object.assign(fetch, { calls });
}

describe('TranscriptCache', () => {
  it('hits when it holds the prefix with the same digest, misses otherwise', () => {
    const cache = new TranscriptCache();
    cache.store('k', TranscriptEntry.of(run.slice(0, 3)));
    expect(cache.lookup('k', 3, chainDigest(emptyDigest, run.slice(0, 3)))).toBeDefined();
    expect(cache.lookup('k', 2, chainDigest(emptyDigest, run.slice(0, 2)))).toBeDefined();
    expect(cache.lookup('k', 3, emptyDigest)).toBeUndefined();
    expect(cache.lookup('k', 4, chainDigest(emptyDigest, run.slice(0, 4)))).toBeUndefined();
    expect(cache.lookup('other', 0, emptyDigest)).toBeUndefined();
    expect(cache.stats).toMatchObject({ hits: 2, misses: 3 });
  });

  it('evicts the least recently used run beyond maxRuns', () => {
    const cache = new TranscriptCache({ maxRuns: 2 });
    cache.store('a', TranscriptEntry.of([]));
    cache.store('b', TranscriptEntry.of([]));
    cache.lookup('a', 0, emptyDigest); // a is now the most recent
    cache.store('c', TranscriptEntry.of([]));
    expect(cache.lookup('b', 0, emptyDigest)).toBeUndefined();
    expect(cache.lookup('a', 0, emptyDigest)).toBeDefined();
    expect(cache.stats.evictions).toBe(1);
  });

  it('keeps nothing with maxRuns 0', () => {
    const cache = new TranscriptCache({ maxRuns: 0 });
    cache.store('a', TranscriptEntry.of([]));
    expect(cache.size).toBe(0);
  });
});

describe('conversationFor', () => {
  it('starts a run without reading anything', async () => {
    const fetch = fetcherOver(run);
    const conversation = await conversationFor(input(0, 1), new TranscriptCache(), fetch);
    expect(conversation).toEqual({ messages: run.slice(0, 1), source: 'empty' });
    expect(fetch.calls).toEqual([]);
  });

  it('serves the prefix from the cache on the next call', async () => {
    const cache = new TranscriptCache();
    const fetch = fetcherOver(run);
    await conversationFor(input(0, 1), cache, fetch);
    const second = await conversationFor(input(1, 3), cache, fetch);
    expect(second.source).toBe('cache');
    expect(second.messages).toEqual(run.slice(0, 3));
    expect(fetch.calls).toEqual([]);
  });

  it('reads the prefix through the fetcher on a miss and checks its digest', async () => {
    const fetch = fetcherOver(run);
    const conversation = await conversationFor(input(3, 5), new TranscriptCache(), fetch);
    expect(conversation.source).toBe('query');
    expect(conversation.messages).toEqual(run);
    expect(fetch.calls).toEqual([[0, 3]]);
  });

  it('misses for another run id of the same workflow (a reset)', async () => {
    const cache = new TranscriptCache();
    const fetch = fetcherOver(run);
    await conversationFor(input(0, 3, 'r1'), cache, fetch);
    expect((await conversationFor(input(3, 5, 'r2'), cache, fetch)).source).toBe('query');
  });

  it('serves a retried call from a cache that already holds more than its prefix', async () => {
    const cache = new TranscriptCache();
    const fetch = fetcherOver(run);
    await conversationFor(input(0, 5), cache, fetch);
    const retried = await conversationFor(input(3, 5), cache, fetch);
    expect(retried).toEqual({ messages: run, source: 'cache' });
  });

  it('reads only the missing range when the cache holds a shorter prefix (messages passed by reference)', async () => {
    const cache = new TranscriptCache();
    const fetch = fetcherOver(run);
    await conversationFor(input(0, 3), cache, fetch);
    const byReference = await conversationFor(input(5, 5), cache, fetch);
    expect(byReference).toEqual({ messages: run, source: 'query' });
    expect(fetch.calls).toEqual([[3, 5]]);
  });

  it('rereads everything when the cached shorter prefix turns out stale', async () => {
    const cache = new TranscriptCache();
    const stale: Message[] = [{ role: 'user', content: 'an older conversation' }];
    cache.store(TranscriptCache.key('w', 'r1'), TranscriptEntry.of(stale));
    const fetch = fetcherOver(run);
    expect((await conversationFor(input(5, 5), cache, fetch)).messages).toEqual(run);
    expect(fetch.calls).toEqual([
      [1, 5],
      [0, 5],
    ]);
  });

  it('fails with model_transcript_mismatch when the run transcript differs from the digest', async () => {
    const tampered = [run[0] as Message, { role: 'user', content: 'something else' } as Message, ...run.slice(2)];
    const err = await conversationFor(input(3, 5), new TranscriptCache(), fetcherOver(tampered)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).toBe('model_transcript_mismatch');
    expect((err as ApplicationFailure).nonRetryable).toBe(true);
  });

  it('fails with model_transcript_mismatch when the run has fewer messages than were sent', async () => {
    const err = await conversationFor(input(3, 5), new TranscriptCache(), fetcherOver(run.slice(0, 2))).catch((e: unknown) => e);
    expect((err as ApplicationFailure).type).toBe('model_transcript_mismatch');
  });
});

describe('the transcript query fetcher', () => {
  it('reads a transcript whose pages are cut by bytes, every message once and in order', async () => {
    const { queryTranscriptFetcher } = jest.requireActual<typeof import('../../activities/model/transcript-query')>('../../activities/model/transcript-query');
    const { withinBytes } = jest.requireActual<typeof import('../../workflows/state/event-log')>('../../workflows/state/event-log');
    const transcript = Array.from({ length: 30 }, (_, i) => ({ role: 'user' as const, content: `${i}:${'m'.repeat(200_000)}` }));
    const queried: [number, number][] = [];
    const client = {
      workflow: {
        getHandle: () => ({
          // The workflow's transcript handler: a slice, cut at the page byte bound.
          query: async (_query: unknown, args: { from: number; to: number }) => {
            queried.push([args.from, args.to]);
            const messages = withinBytes(transcript.slice(args.from, args.to));
            return { messages, total: transcript.length, next: args.from + messages.length };
          },
        }),
      },
    };
    const fetch = queryTranscriptFetcher(() => client as never, 200);
    const messages = await fetch({ workflowId: 'w', runId: 'r' }, 0, 30);
    expect(messages.map((m) => m.content?.split(':')[0])).toEqual(transcript.map((_, i) => String(i)));
    expect(queried.length).toBeGreaterThan(1);
  });
});
