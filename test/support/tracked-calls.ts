import type { AgentClient } from '../../client/agent-client';

/** An AgentClient whose calls in flight can be awaited. */
export interface TrackedAgents {
  readonly agents: AgentClient;
  /** Resolves once every call made so far has settled (resolved or rejected). */
  settled(): Promise<void>;
}

/**
 * Wraps `agents` so a test can wait for the calls a server made through it before the dev
 * server goes away: a call still in flight then would be retried by the Temporal client
 * against a closed connection, after the test file's teardown.
 */
export function trackCalls(agents: AgentClient): TrackedAgents {
  const inFlight = new Set<Promise<unknown>>();
  const proxy = new Proxy(agents, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (result instanceof Promise) {
          const settled = result.then(
            () => undefined,
            () => undefined,
          );
          inFlight.add(settled);
          void settled.then(() => inFlight.delete(settled));
        }
        return result;
      };
    },
  });
  return {
    agents: proxy,
    settled: async () => {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
