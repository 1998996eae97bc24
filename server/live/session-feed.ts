import { AgentClientError, type AgentClient } from '../../client/agent-client';
import { PollPacing } from '../../client/poll-pacing';
import type { SessionEvent } from '../../contracts/session';
import { callUntil } from './call-until';

/** What a session's subscriber is sent: each of its events once, in seq order, then `end` when the session closes. */
export type SessionFeedItem = { readonly type: 'event'; readonly event: SessionEvent } | { readonly type: 'end'; readonly status: string };

/** Settings of a {@link SessionFeed}. */
export interface SessionFeedOptions {
  /** The longest wait between two reads of a quiet session's events query. Default 1 s. */
  readonly maxPollMs?: number;
  /** Events kept for subscribers that join (the session itself keeps its latest 500). Default 500. */
  readonly recentEvents?: number;
  /** Called once when the feed stops (no subscribers left, or the session closed). */
  readonly onStop?: (feed: SessionFeed) => void;
}

/** One subscriber of a session's feed; `close` ends it (the session goes on). */
export interface SessionSubscription {
  close(): void;
}

interface Subscriber {
  /** The last seq sent. */
  cursor: number;
  readonly send: (item: SessionFeedItem) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The one follower of a session's events in this process, fanned out to every subscriber, as a
 * run's feed is (run-feed.ts): it reads the session's events query (a query: nothing is written
 * to the session's history, however many watch), paced by {@link PollPacing}, keeps what the
 * session keeps, and hands each new event to every subscriber whose cursor is behind it. It
 * follows the session's workflow id across continue-as-new, and sends `end` once the session's
 * workflow has closed and its last events are out.
 */
export class SessionFeed {
  private readonly subscribers = new Set<Subscriber>();
  private readonly recent: SessionEvent[] = [];
  private lastSeq = 0;
  private ended: string | undefined;
  private stopped = false;
  private readonly abort = new AbortController();
  private readonly pacing: PollPacing;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly agents: AgentClient,
    readonly sessionId: string,
    private readonly options: SessionFeedOptions = {},
  ) {
    this.pacing = new PollPacing({ maxMs: options.maxPollMs ?? 1_000 });
  }

  /** Starts following (reads every event the session keeps). */
  start(): void {
    this.running = this.follow();
  }

  /** Settles once the follower has stopped and no Temporal call of it is in flight. */
  get done(): Promise<void> {
    return this.running;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /**
   * Adds a subscriber that resumes after `afterSeq`: the kept events after it at once, the later
   * ones as they come. A cursor older than what the session keeps resumes at its oldest kept event.
   */
  subscribe(afterSeq: number, send: (item: SessionFeedItem) => void): SessionSubscription {
    const sub: Subscriber = { cursor: afterSeq, send };
    this.subscribers.add(sub);
    for (const event of this.recent) this.deliver(sub, event);
    if (this.ended !== undefined) sub.send({ type: 'end', status: this.ended });
    return { close: () => this.unsubscribe(sub) };
  }

  /** Something changed the session (an operation through this server): read now. */
  wake(): void {
    if (!this.stopped) this.pacing.wake();
  }

  /** Stops following. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort();
    this.subscribers.clear();
    this.options.onStop?.(this);
  }

  private unsubscribe(sub: Subscriber): void {
    if (!this.subscribers.delete(sub)) return;
    if (this.subscribers.size === 0) this.stop();
  }

  private deliver(sub: Subscriber, event: SessionEvent): void {
    if (event.seq <= sub.cursor) return;
    sub.cursor = event.seq;
    sub.send({ type: 'event', event });
  }

  private take(events: readonly SessionEvent[]): void {
    for (const event of events) {
      if (event.seq <= this.lastSeq) continue;
      this.lastSeq = event.seq;
      this.recent.push(event);
      if (this.recent.length > (this.options.recentEvents ?? 500)) this.recent.shift();
      for (const sub of this.subscribers) this.deliver(sub, event);
    }
  }

  private call<T>(fn: () => Promise<T>): Promise<T> {
    return callUntil(this.agents.client, this.abort.signal, fn);
  }

  /** The session workflow's status once it has closed (`completed`, `terminated`, …), else undefined. */
  private async closedStatus(): Promise<string | undefined> {
    const session = this.agents.session(this.sessionId);
    const description = await this.call(() => this.agents.client.workflow.getHandle(session.workflowId).describe());
    return description.status.name === 'RUNNING' ? undefined : description.status.name.toLowerCase();
  }

  private async follow(): Promise<void> {
    const session = this.agents.session(this.sessionId);
    let failures = 0;
    let checkedClosed = false;
    while (!this.stopped) {
      try {
        const page = await this.call(() => session.events(this.lastSeq));
        failures = 0;
        if (page.events.some((e) => e.seq > this.lastSeq)) {
          this.take(page.events);
          this.pacing.news();
          continue;
        }
        // Nothing new: the first time, and now and then while quiet, ask whether the session closed.
        if (!checkedClosed || this.pacing.dueForClosedCheck) {
          checkedClosed = true;
          const closed = await this.closedStatus();
          if (closed !== undefined) {
            this.take((await this.call(() => session.events(this.lastSeq))).events);
            return this.end(closed);
          }
        }
        await this.pacing.wait(this.abort.signal);
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof AgentClientError && err.type === 'run_not_found') return this.end('not_found');
        // The server or the workers are away: try again, more slowly, while anyone listens.
        failures += 1;
        await sleep(Math.min(5_000, 250 * 2 ** Math.min(failures, 5)));
      }
    }
  }

  private end(status: string): void {
    if (this.stopped) return;
    this.ended = status;
    for (const sub of [...this.subscribers]) sub.send({ type: 'end', status });
    this.stop();
  }
}

/**
 * The session feeds of one server process, one per session followed, each stopped when its last
 * subscriber leaves or the session closes.
 */
export class SessionFeeds {
  private readonly feeds = new Map<string, SessionFeed>();
  private closed = false;

  constructor(
    private readonly agents: AgentClient,
    private readonly options: Omit<SessionFeedOptions, 'onStop'> = {},
  ) {}

  /**
   * Subscribes to a session's events after `afterSeq`.
   *
   * @throws Error when closed.
   */
  subscribe(sessionId: string, afterSeq: number, send: (item: SessionFeedItem) => void): SessionSubscription {
    if (this.closed) throw new Error('the live hub is closed');
    let feed = this.feeds.get(sessionId);
    if (!feed) {
      feed = new SessionFeed(this.agents, sessionId, {
        ...this.options,
        onStop: (stopped) => {
          if (this.feeds.get(sessionId) === stopped) this.feeds.delete(sessionId);
        },
      });
      this.feeds.set(sessionId, feed);
      feed.start();
    }
    return feed.subscribe(afterSeq, send);
  }

  /** The session changed (an operation through this server): its feed here, if any, reads now. */
  wake(sessionId: string): void {
    this.feeds.get(sessionId)?.wake();
  }

  /** Sessions followed now. */
  get size(): number {
    return this.feeds.size;
  }

  /** Stops every feed and waits for their Temporal calls to end. */
  async close(): Promise<void> {
    this.closed = true;
    const feeds = [...this.feeds.values()];
    for (const feed of feeds) feed.stop();
    this.feeds.clear();
    await Promise.allSettled(feeds.map((feed) => feed.done));
  }
}
