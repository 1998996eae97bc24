import { censusCommands, censusKey, censusWindowMs, defaultKeyPrefix, prefixDisagreement } from '../../server/live/prefix-census';

describe("the census of a namespace's stream key prefixes", () => {
  it('the default prefix names the namespace, and the census key lies outside every default prefix', () => {
    expect(defaultKeyPrefix('prod')).toBe('durable-agents:live:prod:');
    expect(censusKey('prod').startsWith('durable-agents:live:')).toBe(false);
  });

  it('notes the prefix with the time, forgets notes older than the window, and reads the rest', () => {
    expect(censusCommands('prod', 'durable-agents:live:prod:', 1_000_000)).toEqual([
      ['ZADD', 'durable-agents:live-prefixes:prod', '1000000', 'durable-agents:live:prod:'],
      ['ZREMRANGEBYSCORE', 'durable-agents:live-prefixes:prod', '-inf', `(${1_000_000 - censusWindowMs}`],
      ['PEXPIRE', 'durable-agents:live-prefixes:prod', String(censusWindowMs)],
      ['ZRANGE', 'durable-agents:live-prefixes:prod', '0', '-1'],
    ]);
  });

  it('is quiet when every server uses the same prefix', () => {
    expect(prefixDisagreement('prod', 'durable-agents:live:prod:', ['durable-agents:live:prod:'])).toBeUndefined();
    expect(prefixDisagreement('prod', 'durable-agents:live:prod:', [])).toBeUndefined();
  });

  it('names the namespace, the other prefixes, its own and the default when they differ', () => {
    const warning = prefixDisagreement('prod', 'durable-agents:live:', ['durable-agents:live:', 'durable-agents:live:prod:', 'x:']);
    expect(warning).toBe(
      'API servers of namespace "prod" on this Redis use the stream key prefixes "durable-agents:live:prod:", "x:", this one "durable-agents:live:": ' +
        'they share no token deltas or announcements with it. Give every server of the namespace the same keyPrefix, or none (the default is "durable-agents:live:prod:")',
    );
  });
});
