import type { Message } from '../../contracts';
import { canonicalJson, chainDigest, emptyDigest, fnv1a64, prefixDigests } from '../../workflows/planners/llm';

const messages: Message[] = [
  { role: 'user', content: 'Add AAPL' },
  { role: 'assistant', toolCalls: [{ id: 'c1', name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }] },
  { role: 'tool', toolCallId: 'c1', name: 'add_to_watchlist', content: '{"added":["AAPL"]}' },
];

describe('transcript digest', () => {
  it('is 64-bit FNV-1a over UTF-8 (published test vectors)', () => {
    expect(fnv1a64('')).toBe('cbf29ce484222325');
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c');
    expect(fnv1a64('foobar')).toBe('85944171f73967e8');
  });

  it('hashes non-ASCII text as UTF-8 bytes', () => {
    expect(fnv1a64('é')).toBe(fnv1a64('\u00e9'));
    expect(fnv1a64('é')).not.toBe(fnv1a64('e'));
    expect(fnv1a64('😀')).not.toBe(fnv1a64('😁'));
  });

  it('serializes objects with sorted keys, whatever order they were built in', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}');
    expect(canonicalJson({ a: undefined, b: 'x' })).toBe('{"b":"x"}');
  });

  it('gives the same digest for equal messages with different key order', () => {
    const reordered: Message = { content: 'Add AAPL', role: 'user' };
    expect(chainDigest(emptyDigest, [reordered])).toBe(chainDigest(emptyDigest, [messages[0] as Message]));
  });

  it('chains: extending a prefix digest equals digesting everything at once', () => {
    const stepwise = chainDigest(chainDigest(emptyDigest, messages.slice(0, 1)), messages.slice(1));
    expect(stepwise).toBe(chainDigest(emptyDigest, messages));
    expect(prefixDigests(messages)).toEqual([0, 1, 2, 3].map((n) => chainDigest(emptyDigest, messages.slice(0, n))));
  });

  it('changes when any message changes or the order changes', () => {
    const edited = [...messages.slice(0, 2), { ...(messages[2] as Message), content: '{"added":[]}' } as Message];
    expect(chainDigest(emptyDigest, edited)).not.toBe(chainDigest(emptyDigest, messages));
    expect(chainDigest(emptyDigest, [...messages].reverse())).not.toBe(chainDigest(emptyDigest, messages));
  });

  it('rejects a malformed starting digest', () => {
    expect(() => chainDigest('xyz', messages)).toThrow(/invalid transcript digest/);
  });
});
