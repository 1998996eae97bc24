import type { AgentClient } from '../../client/agent-client';
import type { EventsAnnouncement, TokenDelta } from '../../contracts/deltas';
import type { DeltaSink } from '../../activities/model/delta-publisher';
import { DeltaStore, type DeltaStoreOptions } from './delta-store';
import type { FeedItem } from './feed-item';
import { OpenRuns, type OpenRunsOptions } from './open-runs';
import { RunFeed, type RunFeedOptions } from './run-feed';
import type { Subscription, SubscriptionOptions } from './subscription';

/** Settings of a {@link LiveHub}. */
export interface LiveHubOptions {
  readonly feed?: Pick<RunFeedOptions, 'recentEvents' | 'maxPollMs'>;
  /** Token deltas kept for subscribers that join mid-call: counts and bytes, per run and in all. */
  readonly deltas?: DeltaStoreOptions;
  /** How long whether a run is open is kept, for deltas posted by publishers. */
  readonly openRuns?: OpenRunsOptions;
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
  private readonly counters = { feedsStarted: 0, deltasReceived: 0, deltasStale: 0, deltasRefused: 0, deltasDroppedByPublishers: 0, announcementsReceived: 0, announcementsWaking: 0 };
  private readonly openRuns: OpenRuns;

  constructor(
    readonly agents: AgentClient,
    private readonly options: LiveHubOptions = {},
  ) {
    this.deltaStore = new DeltaStore(options.deltas);
    this.openRuns = new OpenRuns(agents, options.openRuns);
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
          if (this.feeds.get(workflowId) === stopped) this.feeds.delete(workflowId);
        },
      });
      this.feeds.set(workflowId, feed);
      this.counters.feedsStarted += 1;
      feed.start();
    }
    return feed.subscribe(afterSeq, send, options);
  }

  /** Takes one token delta of a model call (the in-process path of the delta side channel). */
  publish(delta: TokenDelta): void {
    this.counters.deltasReceived += 1;
    if (this.deltaStore.add(delta) === 'stale') {
      this.counters.deltasStale += 1;
      return;
    }
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
   * Answers the ids of the refused runs.
   */
  async publishPosted(deltas: readonly TokenDelta[], droppedByPublisher = 0): Promise<string[]> {
    const runs = [...new Set(deltas.map((d) => d.workflowId))];
    const open = await Promise.all(runs.map((id) => this.openRuns.isOpen(id)));
    const refused = new Set(runs.filter((_, i) => !open[i]));
    const taken = deltas.filter((d) => !refused.has(d.workflowId));
    this.counters.deltasRefused += deltas.length - taken.length;
    this.publishBatch(taken, droppedByPublisher);
    return [...refused];
  }

  /**
   * Takes a worker's word that a run's log grew: its feed in this process, if any, reads at once.
   * Needs no check of the run: an announcement only makes a feed read sooner, and a run nobody
   * follows here has no feed.
   */
  announce(announcement: EventsAnnouncement): void {
    this.counters.announcementsReceived += 1;
    const feed = this.feeds.get(announcement.workflowId);
    if (!feed) return;
    this.counters.announcementsWaking += 1;
    feed.wake();
  }

  /** The kept deltas of a run's current model call. */
  currentDeltas(workflowId: string): readonly TokenDelta[] {
    return this.deltaStore.current(workflowId);
  }

  stats(): LiveHubStats {
    let subscribers = 0;
    for (const feed of this.feeds.values()) subscribers += feed.subscriberCount;
    return { feeds: this.feeds.size, subscribers, ...this.counters, deltaBytes: this.deltaStore.byteSize };
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
    await Promise.allSettled(feeds.map((feed) => feed.done));
  }
}
