import type { AgentClient } from '../../client/agent-client';
import type { FeedItem } from './feed-item';

/** An internal step of a subscription: a feed item, or "read pages up to this seq first". */
export type SubscriptionStep = FeedItem | { readonly type: 'sync'; readonly upTo: number };

/** Options of a {@link Subscription}. */
export interface SubscriptionOptions {
  /** Steps queued at most before a slow subscriber is cut off. Default 10,000. */
  readonly maxQueued?: number;
  /** Called once when the subscription ends (run ended, cut off, or unsubscribed). */
  readonly onClose?: (reason: 'end' | 'slow' | 'closed' | 'error') => void;
}

/**
 * One subscriber of a run's feed. It sees each event once, in seq order, with no gap: the
 * feed's items are processed one at a time, events it has already sent are skipped, and a
 * gap (a subscriber resuming from an older seq, or joining a feed that is ahead of it) is
 * filled from pages of the events query before the live event is sent.
 */
export class Subscription {
  /** The next seq this subscriber expects. */
  private cursor: number;
  private readonly queue: SubscriptionStep[] = [];
  private pumping = false;
  private closed = false;

  constructor(
    private readonly agents: AgentClient,
    readonly workflowId: string,
    afterSeq: number,
    private readonly send: (item: FeedItem) => void,
    private readonly options: SubscriptionOptions = {},
  ) {
    this.cursor = afterSeq + 1;
  }

  /** Whether it still takes items. */
  get isOpen(): boolean {
    return !this.closed;
  }

  /** The last seq sent. */
  get lastSeq(): number {
    return this.cursor - 1;
  }

  /** Queues a step; processed after the ones before it. */
  push(step: SubscriptionStep): void {
    if (this.closed) return;
    if (this.queue.length >= (this.options.maxQueued ?? 10_000)) {
      this.close('slow');
      return;
    }
    this.queue.push(step);
    if (!this.pumping) void this.pump();
  }

  /** Ends the subscription; no more items are sent. */
  close(reason: 'end' | 'slow' | 'closed' | 'error' = 'closed'): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.options.onClose?.(reason);
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (!this.closed && this.queue.length > 0) {
        const step = this.queue.shift() as SubscriptionStep;
        await this.process(step);
      }
    } catch {
      this.close('error');
    } finally {
      this.pumping = false;
    }
  }

  private async process(step: SubscriptionStep): Promise<void> {
    switch (step.type) {
      case 'sync':
        return this.catchUp(step.upTo);
      case 'event': {
        const { seq } = step.event;
        if (seq < this.cursor) return;
        if (seq > this.cursor) await this.catchUp(seq - 1);
        if (this.closed || seq < this.cursor) return;
        this.send(step);
        this.cursor = seq + 1;
        return;
      }
      case 'reset':
        // Only a subscriber that has sent replaced events needs to drop them.
        if (this.cursor > step.fromSeq) {
          this.send(step);
          this.cursor = step.fromSeq;
        }
        return;
      case 'delta':
        this.send(step);
        return;
      case 'end':
        this.send(step);
        this.close('end');
        return;
    }
  }

  /** Sends the events up to `upTo` it has not sent, read from the events query. */
  private async catchUp(upTo: number): Promise<void> {
    while (!this.closed && this.cursor <= upTo) {
      const page = await this.agents.events(this.workflowId, this.cursor - 1, Math.min(1000, upTo - this.cursor + 1), { timeoutMs: 5_000 });
      // A run that continued as new keeps only its newest events: the older ones are gone.
      if (page.missingBefore !== undefined && page.missingBefore > this.cursor) this.cursor = page.missingBefore;
      const events = page.events.filter((e) => e.seq >= this.cursor && e.seq <= upTo);
      for (const event of events) {
        if (this.closed) return;
        this.send({ type: 'event', event });
        this.cursor = event.seq + 1;
      }
      if (events.length === 0) return;
    }
  }
}
