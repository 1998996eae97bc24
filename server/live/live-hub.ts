import type { AgentClient } from '../../client/agent-client';
import type { DeltaCallSignature, EventsAnnouncement, TokenDelta } from '../../contracts/deltas';
import { checkDeltaKeys, type DeltaKey } from '../../config/delta-keys';
import type { DeltaSink } from '../../activities/model/delta-publisher';
import type { Principal } from '../auth';
import { DeltaStore, type DeltaStoreOptions } from './delta-store';
import type { FeedItem } from './feed-item';
import { messagesByRun, type LiveBroker, type LiveBrokerStats, type LiveMessage } from './live-broker';
import { OpenRuns, type OpenRunsOptions, type RunFacts } from './open-runs';
import { checkPublisherScope } from './publisher-scope';
import { checkDeltaSignatures } from './delta-signatures';
import { RunFeed, type RunFeedOptions } from './run-feed';
import { SessionFeeds } from './session-feed';
import type { Subscription, SubscriptionOptions } from './subscription';

/** Settings of a {@link LiveHub}. */
export interface LiveHubOptions {
  readonly feed?: Pick<RunFeedOptions, 'recentEvents' | 'maxPollMs' | 'minWakeIntervalMs'>;
  /** Token deltas kept for subscribers that join mid-call: counts and bytes, per run and in all. */
  readonly deltas?: DeltaStoreOptions;
  /** How long whether a run is open is kept, for deltas posted by publishers. */
  readonly openRuns?: OpenRunsOptions;
  /**
   * How several API servers behind one address share what workers post (e.g. `RedisLiveBroker`):
   * deltas and announcements posted to any of them reach subscribers on all. Default none: one
   * process. The hub closes it when it closes.
   */
  readonly broker?: LiveBroker;
  /**
   * Keys that sign token deltas (shared with the workers, which sign with the first): with any,
   * `POST /api/deltas` takes only deltas signed for their model call with one of them, and
   * refuses the others (403, naming the run and key id). Default none: any publisher may post
   * deltas for the runs its token allows. `startAgentServer` reads `DURABLE_AGENTS_DELTAS_KEYS`.
   */
  readonly deltaKeys?: readonly DeltaKey[];
}

/** Counters of a hub, for tests and benchmarks. */
export interface LiveHubStats {
  /** Runs followed now (one follower each, however many subscribers). */
  feeds: number;
  /** Subscribers now. */
  subscribers: number;
  /** Followers started since the hub was made. */
  feedsStarted: number;
  /** Token deltas received, and those dropped as stale (an older attempt of a call). */
  deltasReceived: number;
  deltasStale: number;
  /** Deltas posted for runs that do not exist or have ended: dropped. */
  deltasRefused: number;
  /** Bytes of deltas kept now. */
  deltaBytes: number;
  /** Deltas workers said they dropped (their buffer was full or the server slow). */
  deltasDroppedByPublishers: number;
  /** Workers' announcements of new events, and those that woke a feed of this process. */
  announcementsReceived: number;
  announcementsWaking: number;
  /** Deltas and announcements other servers took, received through the broker. */
  deltasFromBroker: number;
  announcementsFromBroker: number;
  /** The broker's own counters, when there is one. */
  broker?: LiveBrokerStats;
}

/**
 * Live event feeds and token deltas of runs, for SSE, the UI message stream and WebSocket
 * subscribers. One {@link RunFeed} per run per process, shared by all its subscribers and
 * stopped when the last one leaves or the run ends. It is also a {@link DeltaSink}: a worker
 * in the same process passes the hub as `deltas` of its model activity, one elsewhere posts
 * to `POST /api/deltas`.
 */
export class LiveHub implements DeltaSink {
  private readonly feeds = new Map<string, RunFeed>();
  private readonly deltaStore: DeltaStore;
  private closed = false;
  /** Connections to end on close (WebSockets outlive their feed's `end`). */
  private readonly connections = new Set<() => void>();
  private readonly counters = {
    feedsStarted: 0,
    deltasReceived: 0,
    deltasStale: 0,
    deltasRefused: 0,
    deltasDroppedByPublishers: 0,
    announcementsReceived: 0,
    announcementsWaking: 0,
    deltasFromBroker: 0,
    announcementsFromBroker: 0,
  };
  private readonly openRuns: OpenRuns;
  private readonly broker: LiveBroker | undefined;
  /** What a worker in this process handed over in this tick, per run, for the broker. */
  private outbox = new Map<string, { deltas: TokenDelta[]; lastSeq?: number }>();
  /** The live feeds of sessions' events (their WebSockets), one per session followed. */
  readonly sessions: SessionFeeds;

  constructor(
    readonly agents: AgentClient,
    private readonly options: LiveHubOptions = {},
  ) {
    checkDeltaKeys(options.deltaKeys ?? [], 'deltaKeys');
    this.deltaStore = new DeltaStore(options.deltas);
    this.openRuns = new OpenRuns(agents, options.openRuns);
    this.sessions = new SessionFeeds(agents, { ...(options.feed?.maxPollMs !== undefined ? { maxPollMs: options.feed.maxPollMs } : {}) });
    this.broker = options.broker;
    this.broker?.start((workflowId, message) => this.fromBroker(workflowId, message), { namespace: agents.client.options.namespace });
  }

  /**
   * Subscribes to a run's feed from after `afterSeq`: every later event once, in order, then
   * `end`; `reset` after a rewind; deltas as they come.
   *
   * @throws Error when the hub is closed.
   */
  subscribe(workflowId: string, afterSeq: number, send: (item: FeedItem) => void, options: SubscriptionOptions = {}): Subscription {
    if (this.closed) throw new Error('the live hub is closed');
    let feed = this.feeds.get(workflowId);
    if (!feed) {
      feed = new RunFeed(this.agents, workflowId, {
        ...this.options.feed,
        currentDeltas: () => this.deltaStore.current(workflowId),
        onEvent: (event) => {
          if (event.type === 'plan') this.deltaStore.turnLanded(workflowId, event.turn);
        },
        onReset: () => this.deltaStore.forget(workflowId),
        onStop: (stopped) => {
          if (this.feeds.get(workflowId) !== stopped) return;
          this.feeds.delete(workflowId);
          this.broker?.unfollow(workflowId);
        },
      });
      this.feeds.set(workflowId, feed);
      this.counters.feedsStarted += 1;
      feed.start();
      if (this.broker) void this.follow(this.broker, workflowId, feed);
    }
    return feed.subscribe(afterSeq, send, options);
  }

  /**
   * Follows a run's messages on the broker; the deltas other servers took of its current model
   * call join this server's (once each, in order), for subscribers that join mid-call.
   */
  private async follow(broker: LiveBroker, workflowId: string, feed: RunFeed): Promise<void> {
    const recent = await broker.follow(workflowId);
    // The feed stopped while the broker answered (and no other took its place).
    if (!this.feeds.has(workflowId)) {
      broker.unfollow(workflowId);
      return;
    }
    if (this.feeds.get(workflowId) !== feed) return;
    for (const delta of recent) this.take(delta);
  }

  /**
   * Takes one token delta of a model call (the in-process path of the delta side channel); with a
   * broker, other servers get it too.
   */
  publish(delta: TokenDelta): void {
    this.counters.deltasReceived += 1;
    this.take(delta);
    if (this.broker) this.toBroker(delta.workflowId).deltas.push(delta);
  }

  /** Keeps a delta for subscribers that join later and sends it to the run's subscribers here. */
  private take(delta: TokenDelta): void {
    const admission = this.deltaStore.add(delta);
    if (admission === 'stale') this.counters.deltasStale += 1;
    if (admission === 'stale' || admission === 'duplicate') return;
    // Deltas of a turn whose result has landed still reach live subscribers (they are tagged
    // with their turn), but are not kept for later ones.
    this.feeds.get(delta.workflowId)?.delta(delta);
  }

  /** Takes a batch of a worker in this process (trusted: its runs are not checked). */
  publishBatch(deltas: readonly TokenDelta[], droppedByPublisher = 0): void {
    this.counters.deltasDroppedByPublishers = Math.max(this.counters.deltasDroppedByPublishers, droppedByPublisher);
    for (const delta of deltas) this.publish(delta);
  }

  /**
   * Takes a batch posted by a publisher over HTTP: only the deltas of runs that exist and are
   * open (asked of Temporal, the answers kept briefly); the others are dropped and counted.
   * Answers the ids of the refused runs. It carries no signatures: a hub with delta keys refuses
   * these deltas (use {@link takePosted}).
   *
   * @throws ApiError `forbidden` when `publisher` is scoped to task queues and a run is on another.
   */
  async publishPosted(deltas: readonly TokenDelta[], droppedByPublisher = 0, publisher?: Principal): Promise<string[]> {
    return (await this.takePosted({ deltas, dropped: droppedByPublisher }, publisher)).refused;
  }

  /**
   * Takes what a publisher posted to `POST /api/deltas`: its deltas (of runs that exist and are
   * open, as {@link publishPosted}) and its announcements of runs' new events, which wake the
   * runs' feeds here. With a broker, both go to the other servers too, the announcements only for
   * runs that exist (a publisher cannot fill the broker with made-up runs). A publisher scoped to
   * task queues (`taskQueues` of its token) may post for the runs of those queues only.
   *
   * With delta keys, every model call the deltas belong to must be signed with one of them.
   *
   * @throws ApiError `forbidden` when `publisher` is scoped and a run it names is on another task
   *   queue, or (with delta keys) when a call's deltas are not signed with one of them.
   */
  async takePosted(
    batch: { readonly deltas: readonly TokenDelta[]; readonly signatures?: readonly DeltaCallSignature[]; readonly events?: readonly EventsAnnouncement[]; readonly dropped?: number },
    publisher?: Principal,
  ): Promise<{ refused: string[] }> {
    checkDeltaSignatures(this.options.deltaKeys ?? [], batch.deltas, batch.signatures);
    const announcements = batch.events ?? [];
    // Unchecked, an announcement only makes a feed of this process read sooner: as cheap as a read.
    const check = publisher?.taskQueues !== undefined || this.broker !== undefined;
    if (!check) for (const announcement of announcements) this.announceHere(announcement);
    const deltaRuns = new Set(batch.deltas.map((d) => d.workflowId));
    const runs = [...new Set([...deltaRuns, ...(check ? announcements.map((a) => a.workflowId) : [])])];
    const facts = new Map<string, RunFacts | undefined>(await Promise.all(runs.map(async (id) => [id, await this.openRuns.facts(id)] as const)));
    if (publisher) checkPublisherScope(publisher, facts);
    const refused = [...deltaRuns].filter((id) => facts.get(id)?.open !== true);
    const taken = batch.deltas.filter((d) => facts.get(d.workflowId)?.open === true);
    this.counters.deltasRefused += batch.deltas.length - taken.length;
    this.counters.deltasDroppedByPublishers = Math.max(this.counters.deltasDroppedByPublishers, batch.dropped ?? 0);
    this.counters.deltasReceived += taken.length;
    for (const delta of taken) this.take(delta);
    const announced = check ? announcements.filter((a) => facts.get(a.workflowId) !== undefined) : [];
    for (const announcement of check ? announced : []) this.announceHere(announcement);
    if (this.broker) await this.postToBroker(this.broker, taken, announced);
    return { refused };
  }

  /** Hands a post's deltas and announcements to the broker, one message per run, in order. */
  private async postToBroker(broker: LiveBroker, deltas: readonly TokenDelta[], announcements: readonly EventsAnnouncement[]): Promise<void> {
    // Awaited, so that the publisher's next post (perhaps to another server) lands after this one.
    await Promise.all([...messagesByRun(deltas, announcements)].map(([id, message]) => broker.publish(id, message)));
  }

  /**
   * Takes a worker's word that a run's log grew (a worker in this process): its feed here, if
   * any, reads at once; with a broker, the run's feeds on other servers too.
   */
  announce(announcement: EventsAnnouncement): void {
    this.announceHere(announcement);
    if (this.broker) {
      const pending = this.toBroker(announcement.workflowId);
      pending.lastSeq = Math.max(announcement.lastSeq, pending.lastSeq ?? 0);
    }
  }

  /**
   * Wakes the run's feed in this process, if any. Needs no check of the run: an announcement only
   * makes a feed read sooner, and a run nobody follows here has no feed.
   */
  private announceHere(announcement: EventsAnnouncement): void {
    this.counters.announcementsReceived += 1;
    const feed = this.feeds.get(announcement.workflowId);
    if (!feed) return;
    this.counters.announcementsWaking += 1;
    feed.wake();
  }

  /** The broker's message of a run for this tick (a worker in this process hands deltas one by one). */
  private toBroker(workflowId: string): { deltas: TokenDelta[]; lastSeq?: number } {
    if (this.outbox.size === 0) setImmediate(() => this.flushOutbox());
    let message = this.outbox.get(workflowId);
    if (!message) {
      message = { deltas: [] };
      this.outbox.set(workflowId, message);
    }
    return message;
  }

  private flushOutbox(): void {
    const outbox = this.outbox;
    this.outbox = new Map();
    for (const [workflowId, message] of outbox) void this.broker?.publish(workflowId, message);
  }

  /** What another server took, for a run this one follows. */
  private fromBroker(workflowId: string, message: LiveMessage): void {
    this.counters.deltasFromBroker += message.deltas.length;
    for (const delta of message.deltas) this.take(delta);
    if (message.lastSeq === undefined) return;
    this.counters.announcementsFromBroker += 1;
    this.feeds.get(workflowId)?.wake();
  }

  /** The kept deltas of a run's current model call. */
  currentDeltas(workflowId: string): readonly TokenDelta[] {
    return this.deltaStore.current(workflowId);
  }

  stats(): LiveHubStats {
    let subscribers = 0;
    for (const feed of this.feeds.values()) subscribers += feed.subscriberCount;
    return { feeds: this.feeds.size, subscribers, ...this.counters, deltaBytes: this.deltaStore.byteSize, ...(this.broker ? { broker: this.broker.stats() } : {}) };
  }

  /**
   * Registers a connection to end when the hub closes; answers the function that unregisters it.
   */
  track(end: () => void): () => void {
    this.connections.add(end);
    return () => {
      this.connections.delete(end);
    };
  }

  /** Stops every feed (closing its subscribers' streams) and ends tracked connections. */
  async close(): Promise<void> {
    this.closed = true;
    for (const end of [...this.connections]) end();
    this.connections.clear();
    const feeds = [...this.feeds.values()];
    for (const feed of feeds) feed.stop();
    this.feeds.clear();
    // Stopping cancels their Temporal calls; wait for them, so the caller may close the connection.
    await Promise.allSettled([...feeds.map((feed) => feed.done), this.sessions.close()]);
    this.flushOutbox();
    await this.broker?.close();
  }
}
