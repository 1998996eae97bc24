import { AgentClientError, RunNotStartedError, type AgentClient } from '../../client/agent-client';
import type { EventPage, RunEvent } from '../../contracts';
import type { TokenDelta } from '../../contracts/deltas';
import { terminalRunStatuses, type FeedItem } from './feed-item';
import { Subscription, type SubscriptionOptions } from './subscription';
import { PollPacing } from '../../client/poll-pacing';
import { callUntil } from './call-until';
import { WakeCoalescer } from './wake-coalescer';


/** Settings of a {@link RunFeed}. */
export interface RunFeedOptions {
  /** Events kept for subscribers that join (older ones are read from the events query). Default 500. */
  readonly recentEvents?: number;
  /**
   * The longest wait between two reads of a quiet run's events query. Default 1 s; a read that
   * brings events is followed by another soon, and {@link RunFeed.wake} ends a wait at once.
   */
  readonly maxPollMs?: number;
  /**
   * Announcements of new events wake the feed at most once per this many ms; the others ride on
   * that read. Default 250: a publisher that floods announcements costs the run at most four
   * reads a second.
   */
  readonly minWakeIntervalMs?: number;
  /**
   * How long an events query waits for a worker before the feed tries again. Default 5 s: a query
   * that lands just as a run completes can go unanswered until Temporal's own 30 s deadline.
   */
  readonly queryTimeoutMs?: number;
  /** Called for each new event (the hub uses `plan` to drop the deltas of a landed turn). */
  readonly onEvent?: (event: RunEvent) => void;
  /** Called on a rewind. */
  readonly onReset?: (fromSeq: number) => void;
  /** Called once when the feed stops (no subscribers left, or the run ended). */
  readonly onStop?: (feed: RunFeed) => void;
  /** The deltas of the current model call, for subscribers that join mid-call. */
  readonly currentDeltas?: () => readonly TokenDelta[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The one follower of a run in this process, fanned out to every subscriber: it reads the
 * run's events query (one read at a time, however many subscribe; a query adds nothing to the
 * run's history), notices rewinds (the log's epoch changes) and the run's end, and hands each
 * item to every subscriber in order. It follows the workflow id, so a run that continues as new
 * goes on in the same feed.
 */
export class RunFeed {
  private readonly subscribers = new Set<Subscription>();
  /** seq → time of every event sent in this epoch: a rewound log differs from the first replaced seq. */
  private readonly seen = new Map<number, string>();
  private readonly recent: RunEvent[] = [];
  private lastSeq = 0;
  private epoch: string | undefined;
  private stopped = false;
  private ended: string | undefined;
  /** Cancels the feed's Temporal calls in flight when it stops. */
  private readonly abort = new AbortController();
  private running: Promise<void> = Promise.resolve();
  private readonly pacing: PollPacing;
  private readonly wakes: WakeCoalescer;
  private wakeTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly agents: AgentClient,
    readonly workflowId: string,
    private readonly options: RunFeedOptions = {},
  ) {
    this.pacing = new PollPacing({ maxMs: options.maxPollMs ?? 1_000 });
    this.wakes = new WakeCoalescer(options.minWakeIntervalMs ?? 250);
  }

  /** Starts following (reads the log from its start). */
  start(): void {
    this.running = this.follow();
  }

  /** Settles once the follower has stopped and no Temporal call of it is in flight. */
  get done(): Promise<void> {
    return this.running;
  }

  /** Subscribers now. */
  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /**
   * Adds a subscriber that resumes after `afterSeq`. Events it misses between `afterSeq` and
   * what this feed keeps are read from the events query first.
   */
  subscribe(afterSeq: number, send: (item: FeedItem) => void, options: SubscriptionOptions = {}): Subscription {
    const sub = new Subscription(this.agents, this.workflowId, afterSeq, send, {
      ...options,
      onClose: (reason) => {
        this.subscribers.delete(sub);
        options.onClose?.(reason);
        if (this.subscribers.size === 0) this.stop();
      },
    });
    this.subscribers.add(sub);
    const oldestKept = this.recent[0]?.seq ?? this.lastSeq + 1;
    if (afterSeq + 1 < oldestKept && this.lastSeq > afterSeq) sub.push({ type: 'sync', upTo: Math.min(oldestKept - 1, this.lastSeq) });
    for (const event of this.recent) if (event.seq > afterSeq) sub.push({ type: 'event', event });
    for (const delta of this.options.currentDeltas?.() ?? []) sub.push({ type: 'delta', delta });
    if (this.ended !== undefined) sub.push({ type: 'end', status: this.ended });
    return sub;
  }

  /**
   * Something announced new events of the run (a worker, through the hub): read them now, or at
   * the end of the coalescing interval when the last wake was less than that ago.
   */
  wake(): void {
    if (this.stopped) return;
    const decision = this.wakes.wake(Date.now());
    if (decision.type === 'now') this.pacing.wake();
    if (decision.type !== 'later') return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.wakes.fired(Date.now());
      this.pacing.wake();
    }, decision.inMs);
  }

  /** Hands a token delta to every subscriber. */
  delta(delta: TokenDelta): void {
    if (this.ended !== undefined) return;
    this.broadcast({ type: 'delta', delta });
  }

  /** Stops following; subscribers still open are closed. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.wakeTimer);
    this.wakes.cancel();
    this.abort.abort();
    for (const sub of [...this.subscribers]) sub.close('closed');
    this.options.onStop?.(this);
  }

  private broadcast(item: FeedItem): void {
    for (const sub of this.subscribers) sub.push(item);
  }

  private emit(event: RunEvent): void {
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    this.seen.set(event.seq, event.at);
    // Bounded: a rewind behind the oldest seq kept resets subscribers from the first seq.
    if (this.seen.size > 100_000) this.seen.delete(this.seen.keys().next().value as number);
    this.recent.push(event);
    if (this.recent.length > (this.options.recentEvents ?? 500)) this.recent.shift();
    this.options.onEvent?.(event);
    this.broadcast({ type: 'event', event });
  }

  /** Handles one page; false when a rewind was noticed (the caller reads again from `lastSeq`). */
  private async apply(page: EventPage): Promise<boolean> {
    if (page.epoch !== undefined && this.epoch !== undefined && page.epoch !== this.epoch) {
      const fromSeq = await this.firstReplacedSeq();
      this.epoch = page.epoch;
      for (const seq of [...this.seen.keys()]) if (seq >= fromSeq) this.seen.delete(seq);
      while (this.recent.length > 0 && (this.recent.at(-1) as RunEvent).seq >= fromSeq) this.recent.pop();
      this.lastSeq = Math.min(this.lastSeq, fromSeq - 1);
      this.options.onReset?.(fromSeq);
      this.broadcast({ type: 'reset', epoch: page.epoch, fromSeq });
      return false;
    }
    this.epoch ??= page.epoch;
    for (const event of page.events) this.emit(event);
    return true;
  }

  /** The first seq where the rewound log differs from the events this feed sent. */
  private async firstReplacedSeq(): Promise<number> {
    for (let after = 0; ; ) {
      const page = await this.events(after, 1000);
      for (const event of page.events) if (this.seen.get(event.seq) !== event.at) return event.seq;
      if (page.events.length === 0) return Math.min(after + 1, this.lastSeq + 1);
      after = page.nextAfterSeq;
    }
  }

  /** Runs a Temporal call of this feed: cancelled when the feed stops. */
  private call<T>(fn: () => Promise<T>): Promise<T> {
    return callUntil(this.agents.client, this.abort.signal, fn);
  }

  private events(afterSeq: number, limit: number): Promise<EventPage> {
    return this.call(() => this.agents.events(this.workflowId, afterSeq, limit, { timeoutMs: this.options.queryTimeoutMs ?? 5_000 }));
  }

  private async isClosed(): Promise<string | undefined> {
    const description = await this.call(() => this.agents.client.workflow.getHandle(this.workflowId).describe());
    return description.status.name === 'RUNNING' ? undefined : description.status.name.toLowerCase();
  }

  private async follow(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        const page = await this.events(this.lastSeq, 500);
        if (!(await this.apply(page))) continue;
        failures = 0;
        if (page.events.length > 0) {
          this.pacing.news();
          continue;
        }
        if (terminalRunStatuses.has(page.status)) return this.end(page.status);
        await this.pacing.wait(this.abort.signal);
        if (this.stopped) return;
        // Nothing new for a while: now and then, check whether the run closed without a terminal
        // event in its log (a bug in agent code), which ends the feed.
        if (this.pacing.dueForClosedCheck) {
          const closed = await this.isClosed();
          if (closed) {
            const last = await this.events(this.lastSeq, 1000);
            if (await this.apply(last)) return this.end(terminalRunStatuses.has(last.status) ? last.status : closed);
          }
        }
      } catch (err) {
        if (this.stopped) return;
        failures += 1;
        // A session's run followed right after sendMessage may not have started yet (queued
        // behind another, or a moment before it exists): wait for it; any other id ends here.
        if (err instanceof RunNotStartedError) {
          await sleep(Math.min(2_000, 100 * 2 ** Math.min(failures, 5)));
          continue;
        }
        if (err instanceof AgentClientError && err.type === 'run_not_found') return this.end('not_found');
        // The server or the workers are away: try again, more slowly, while anyone listens.
        await sleep(Math.min(5_000, 250 * 2 ** Math.min(failures, 5)));
      }
    }
  }

  private end(status: string): void {
    if (this.stopped) return;
    this.ended = status;
    this.broadcast({ type: 'end', status });
    // Subscribers close themselves on `end`; the last one stops the feed.
    if (this.subscribers.size === 0) this.stop();
  }
}
