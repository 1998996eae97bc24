/**
 * Which stream key prefixes the API servers of one Temporal namespace use on a Redis. Servers of
 * one namespace share deltas and announcements only when they use the same prefix; a fleet
 * started in two ways with two prefixes shares nothing, silently. So each server notes its prefix
 * in a well-known key of the namespace (a sorted set: prefix → when it was last noted) and warns
 * when it sees others there.
 */

/** How long a server's note counts: three times the interval at which it renews it. */
export const censusWindowMs = 3 * 60_000;
/** How often a server renews its note (and looks at the others'). */
export const censusIntervalMs = 60_000;

/** The default prefix of the run streams of a namespace's servers. */
export function defaultKeyPrefix(namespace: string): string {
  return `durable-agents:live:${namespace}:`;
}

/** The well-known key of a namespace's census (outside every default prefix). */
export function censusKey(namespace: string): string {
  return `durable-agents:live-prefixes:${namespace}`;
}

/** The Redis commands that note `prefix` at `now` and answer the prefixes noted within the window (the last command's reply). */
export function censusCommands(namespace: string, prefix: string, now: number): string[][] {
  const key = censusKey(namespace);
  return [
    ['ZADD', key, String(now), prefix],
    ['ZREMRANGEBYSCORE', key, '-inf', `(${now - censusWindowMs}`],
    ['PEXPIRE', key, String(censusWindowMs)],
    ['ZRANGE', key, '0', '-1'],
  ];
}

/**
 * The warning when servers of the namespace use prefixes other than `prefix` (those in `noted`),
 * or undefined when they all agree.
 */
export function prefixDisagreement(namespace: string, prefix: string, noted: readonly string[]): string | undefined {
  const others = [...new Set(noted)].filter((p) => p !== prefix).sort();
  if (others.length === 0) return undefined;
  const list = others.slice(0, 10).map((p) => JSON.stringify(p)).join(', ') + (others.length > 10 ? ` and ${others.length - 10} more` : '');
  return (
    `API servers of namespace ${JSON.stringify(namespace)} on this Redis use the stream key prefix${others.length > 1 ? 'es' : ''} ${list}, this one ${JSON.stringify(prefix)}: ` +
    `they share no token deltas or announcements with it. Give every server of the namespace the same keyPrefix, or none (the default is ${JSON.stringify(defaultKeyPrefix(namespace))})`
  );
}
