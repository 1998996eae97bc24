import { randomUUID } from 'node:crypto';
import type { TokenDelta } from '../../contracts/deltas';
import type { LiveBroker, LiveBrokerContext, LiveBrokerStats, LiveMessage, LiveMessageHandler } from './live-broker';
import { censusCommands, censusIntervalMs, defaultKeyPrefix, prefixDisagreement } from './prefix-census';
import { before, CurrentCallCollector, decodeEntry, entryFields, parseEntries, parseReadReply, runStreamKey, workflowIdOfKey } from './redis-stream-wire';

/** Options of {@link RedisLiveBroker.connect}. */
export interface RedisLiveBrokerOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://` (TLS). */
  readonly url: string;
  /**
   * Prefix of the runs' stream keys. Default `durable-agents:live:<namespace>:`, the server's
   * Temporal namespace (as `npm run api`), so servers of several namespaces may share a Redis and
   * servers of one namespace share streams however they were started. Each server notes its prefix
   * in the namespace's well-known key `durable-agents:live-prefixes:<namespace>` and warns (`log`)
   * when servers of its namespace use another one: they would share nothing.
   */
  readonly keyPrefix?: string;
  /** Entries (posted batches) kept per run, roughly (`XADD MAXLEN ~`). Default 1,000. */
  readonly maxEntriesPerRun?: number;
  /** A run's stream expires this long after its last entry. Default 10 minutes. */
  readonly ttlMs?: number;
  /** Deadline of a publish (one XADD). Default 1,000 ms: a slow broker never holds a post for long. */
  readonly publishTimeoutMs?: number;
  /** How long one blocking read waits before it starts again. Default 5,000 ms. */
  readonly blockMs?: number;
  /**
   * Where connection trouble (at most one line per 30 s) and a disagreement of key prefixes
   * within the namespace are reported. Default `console.warn`.
   */
  readonly log?: (line: string) => void;
}

/** The part of a node-redis client this broker uses. */
interface RedisConnection {
  readonly isReady: boolean;
  sendCommand<T = unknown>(args: readonly string[], options?: { readonly timeout?: number }): Promise<T>;
  connect(): Promise<unknown>;
  destroy(): void;
  on(event: 'error' | 'ready', listener: (arg?: unknown) => void): unknown;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Entries read per page when gathering a run's current call. */
const seedPage = 100;

/**
 * A {@link LiveBroker} on Redis streams, for several API servers behind one address. One stream
 * per run (`<keyPrefix><workflowId>`, the prefix by default `durable-agents:live:<namespace>:`): each post a server takes becomes one entry (`XADD`, the
 * stream capped at about `maxEntriesPerRun` entries and expiring `ttlMs` after its last one).
 * Each server reads, on one connection, only the streams of the runs it has subscribers for
 * (`XREAD BLOCK`, from the last entry it saw, so a short outage loses nothing the stream still
 * holds); a server that starts following a run reads the stream backwards for the deltas of the
 * run's current model call. Uses `@redis/client`, loaded only here.
 *
 * Best effort: while Redis is away, publishes fail at once (counted), reads retry every few
 * seconds, and the client reconnects by itself; servers go on serving, their feeds reading the
 * runs' event logs at their paced interval. Nothing is written to runs' histories.
 *
 * @example
 * declare const agents: AgentClient;
 * const broker = await RedisLiveBroker.connect({ url: 'redis://127.0.0.1:6379' });
 * const server = await startAgentServer({ agents, live: { broker } });
 */
export class RedisLiveBroker implements LiveBroker {
  /** Names this server's entries: its own posts reach its subscribers directly. */
  private readonly origin = randomUUID();
  private prefix: string;
  private namespace = 'default';
  private censusTimer: NodeJS.Timeout | undefined;
  /** The last disagreement of prefixes reported (each is said once). */
  private disagreement: string | undefined;
  /** Followed runs → the id of the last entry read. */
  private readonly cursors = new Map<string, string>();
  private handler: LiveMessageHandler | undefined;
  private closed = false;
  private reading: Promise<void> = Promise.resolve();
  /** The reader's Redis client id while it is connected (for CLIENT UNBLOCK). */
  private readerId: string | undefined;
  private blocked = false;
  /** A run was followed since the read in progress began: it does not read that stream yet. */
  private followedSinceRead = false;
  private wakeReader: (() => void) | undefined;
  private lastLog = 0;
  private readonly counters = { published: 0, publishFailures: 0, received: 0, readFailures: 0 };

  private constructor(
    private readonly commands: RedisConnection,
    private readonly reader: RedisConnection,
    private readonly options: RedisLiveBrokerOptions,
  ) {
    this.prefix = options.keyPrefix ?? defaultKeyPrefix(this.namespace);
  }

  /**
   * Creates the broker's two connections (commands, and the blocking reader) and starts
   * connecting. Answers at once even when Redis is not reachable yet: the client keeps trying,
   * and the server runs without the broker meanwhile.
   *
   * @throws Error when `@redis/client` is not installed, or `url` is not a Redis URL.
   */
  static async connect(options: RedisLiveBrokerOptions): Promise<RedisLiveBroker> {
    let redis: typeof import('@redis/client');
    try {
      redis = await import('@redis/client');
    } catch {
      throw new Error('RedisLiveBroker needs the @redis/client package: npm install @redis/client');
    }
    const url = options.url.trim();
    if (!/^rediss?:\/\//.test(url)) throw new Error(`RedisLiveBroker: expected a redis:// or rediss:// URL, got ${JSON.stringify(url.slice(0, 100))}`);
    const make = (): RedisConnection =>
      redis.createClient({
        url,
        // Fail at once while disconnected: deltas are best effort, and nothing may pile up.
        disableOfflineQueue: true,
        socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 5_000) },
      }) as unknown as RedisConnection;
    const broker = new RedisLiveBroker(make(), make(), options);
    broker.watch(broker.commands, 'commands');
    broker.watch(broker.reader, 'reader');
    broker.reader.on('ready', () => {
      broker.readerId = undefined;
    });
    for (const client of [broker.commands, broker.reader]) client.connect().catch(() => undefined);
    return broker;
  }

  start(onMessage: LiveMessageHandler, server?: LiveBrokerContext): void {
    this.handler = onMessage;
    if (server) this.namespace = server.namespace;
    this.prefix = this.options.keyPrefix ?? defaultKeyPrefix(this.namespace);
    this.reading = this.read();
    this.census();
  }

  /** Notes this server's prefix in its namespace's census now (once connected) and every minute after. */
  private census(): void {
    if (this.closed) return;
    const next = (ms: number): void => {
      this.censusTimer = setTimeout(() => this.census(), ms);
      this.censusTimer.unref?.();
    };
    if (!this.commands.isReady) return next(1_000);
    void this.takeCensus().finally(() => next(censusIntervalMs));
  }

  private async takeCensus(): Promise<void> {
    const timeout = this.options.publishTimeoutMs ?? 1_000;
    try {
      const replies = await Promise.all(censusCommands(this.namespace, this.prefix, Date.now()).map((command) => this.commands.sendCommand(command, { timeout })));
      const noted = replies.at(-1);
      const disagreement = prefixDisagreement(this.namespace, this.prefix, Array.isArray(noted) ? noted.map(String) : []);
      if (disagreement !== undefined && disagreement !== this.disagreement) (this.options.log ?? console.warn)(`durable-agents live broker: ${disagreement}`);
      this.disagreement = disagreement;
    } catch {
      // Redis away: its reads and publishes report that; the census tries again at its next turn.
    }
  }

  async publish(workflowId: string, message: LiveMessage): Promise<void> {
    this.counters.published += 1;
    if (this.closed || !this.commands.isReady) {
      this.counters.publishFailures += 1;
      return;
    }
    const key = runStreamKey(this.prefix, workflowId);
    const timeout = this.options.publishTimeoutMs ?? 1_000;
    try {
      await Promise.all([
        this.commands.sendCommand(['XADD', key, 'MAXLEN', '~', String(this.options.maxEntriesPerRun ?? 1_000), '*', ...entryFields(this.origin, message)], { timeout }),
        this.commands.sendCommand(['PEXPIRE', key, String(this.options.ttlMs ?? 10 * 60_000)], { timeout }),
      ]);
    } catch (err) {
      this.counters.publishFailures += 1;
      this.report(`publishing to Redis failed (${describe(err)}); deltas go to this server's subscribers only until it answers`);
    }
  }

  async follow(workflowId: string): Promise<readonly TokenDelta[]> {
    if (this.cursors.has(workflowId) || this.closed) return [];
    const key = runStreamKey(this.prefix, workflowId);
    const collector = new CurrentCallCollector();
    // Without an answer, read what comes from now on (Redis ids start with the time in ms).
    let cursor = `${Date.now()}-0`;
    try {
      let upper = '+';
      for (let page = 0; page * seedPage < (this.options.maxEntriesPerRun ?? 1_000) * 2; page++) {
        const entries = parseEntries(await this.commands.sendCommand(['XREVRANGE', key, upper, '-', 'COUNT', String(seedPage)], { timeout: this.options.publishTimeoutMs ?? 1_000 }));
        if (page === 0) cursor = entries[0]?.id ?? '0-0';
        let done = false;
        for (const entry of entries) {
          const deltas = decodeEntry(entry.fields)?.message.deltas ?? [];
          if (deltas.length > 0 && collector.add(deltas)) {
            done = true;
            break;
          }
        }
        if (done || entries.length < seedPage) break;
        upper = before((entries.at(-1) as { id: string }).id);
      }
    } catch (err) {
      this.report(`reading a run's recent deltas from Redis failed (${describe(err)})`);
    }
    if (this.closed) return [];
    this.cursors.set(workflowId, cursor);
    this.interruptRead();
    return collector.deltas();
  }

  unfollow(workflowId: string): void {
    // The read in progress may still name its stream; what it brings is ignored.
    this.cursors.delete(workflowId);
  }

  stats(): LiveBrokerStats {
    return { ...this.counters, following: this.cursors.size, connected: this.commands.isReady && this.reader.isReady };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.censusTimer);
    this.wakeReader?.();
    this.commands.destroy();
    this.reader.destroy();
    await this.reading;
  }

  /** The read loop: one XREAD BLOCK over the followed runs' streams at a time. */
  private async read(): Promise<void> {
    let failures = 0;
    while (!this.closed) {
      if (this.cursors.size === 0) {
        await new Promise<void>((resolve) => {
          this.wakeReader = resolve;
        });
        this.wakeReader = undefined;
        continue;
      }
      const followed = [...this.cursors];
      this.followedSinceRead = false;
      try {
        if (!this.reader.isReady) throw new Error('not connected');
        this.readerId ??= String(await this.reader.sendCommand(['CLIENT', 'ID']));
        this.blocked = true;
        const reply = await this.reader
          .sendCommand(['XREAD', 'COUNT', '1000', 'BLOCK', String(this.options.blockMs ?? 5_000), 'STREAMS', ...followed.map(([id]) => runStreamKey(this.prefix, id)), ...followed.map(([, cursor]) => cursor)])
          .finally(() => {
            this.blocked = false;
          });
        failures = 0;
        for (const { key, entries } of parseReadReply(reply)) this.deliver(key, entries);
      } catch (err) {
        if (this.closed) return;
        this.counters.readFailures += 1;
        failures += 1;
        this.report(`reading from Redis failed (${describe(err)}); feeds read the runs' events at their paced interval meanwhile`);
        await sleep(Math.min(5_000, 100 * 2 ** Math.min(failures, 6)));
      }
    }
  }

  private deliver(key: string, entries: readonly { id: string; fields: readonly string[] }[]): void {
    const workflowId = workflowIdOfKey(this.prefix, key);
    if (workflowId === undefined) return;
    for (const entry of entries) {
      // Unfollowed while the read was on its way.
      if (!this.cursors.has(workflowId)) return;
      this.cursors.set(workflowId, entry.id);
      const decoded = decodeEntry(entry.fields);
      if (!decoded || decoded.origin === this.origin) continue;
      this.counters.received += 1;
      this.handler?.(workflowId, decoded.message);
    }
  }

  /** Ends the reader's blocking read, so that it reads a newly followed stream at once. */
  private interruptRead(attempt = 0): void {
    this.followedSinceRead = true;
    this.wakeReader?.();
    if (!this.blocked || this.readerId === undefined || !this.commands.isReady) return;
    this.commands
      .sendCommand(['CLIENT', 'UNBLOCK', this.readerId])
      .then((unblocked) => {
        // The XREAD had not reached Redis yet: try again shortly.
        if (Number(unblocked) === 0 && this.blocked && this.followedSinceRead && attempt < 20) setTimeout(() => this.interruptRead(attempt + 1), 10);
      })
      .catch(() => undefined);
  }

  private watch(client: RedisConnection, name: string): void {
    // An 'error' event without a listener would end the process: the broker is never worth that.
    client.on('error', (err) => this.report(`Redis ${name} connection: ${describe(err)}; reconnecting`));
  }

  private report(line: string): void {
    const now = Date.now();
    if (now - this.lastLog < 30_000) return;
    this.lastLog = now;
    (this.options.log ?? console.warn)(`durable-agents live broker: ${line}`);
  }
}

function describe(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 300);
}
