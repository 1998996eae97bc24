import type { EventPage, RunEvent } from '../contracts';

/**
 * What a follower of a run's event log remembers so that it notices a rewind: the log's epoch
 * and the time of each seq it passed on in that epoch. A rewind starts a new epoch whose events
 * after the rewind point replace the old ones under the same seqs; the first seq whose event
 * differs from what was passed on is where the follower must start again. The log's epoch stays
 * the same across continue-as-new, so a follower of the workflow id goes on there as it is.
 */
export class EventLogCursor {
  private epoch: string | undefined;
  /** seq → `at` of the events passed on in this epoch, oldest first. */
  private readonly passed = new Map<number, string>();

  /** @param maxRemembered seqs remembered at most; a rewind behind the oldest resumes from there. */
  constructor(private readonly maxRemembered = 100_000) {}

  /** Whether `page` comes from another epoch than the events passed on so far (a rewind). */
  isRewound(page: EventPage): page is EventPage & { epoch: string } {
    return page.epoch !== undefined && this.epoch !== undefined && page.epoch !== this.epoch;
  }

  /** Takes in a page of the current epoch; its events are then passed on with {@link passedOn}. */
  accept(page: EventPage): void {
    this.epoch ??= page.epoch;
  }

  /** Notes an event as passed on to the follower's reader. */
  passedOn(event: RunEvent): void {
    this.passed.set(event.seq, event.at);
    if (this.passed.size > this.maxRemembered) this.passed.delete(this.passed.keys().next().value as number);
  }

  /**
   * After {@link isRewound}: finds the first seq the rewound log replaced (reading it from
   * `after` on), forgets what was passed on from there, and takes the page's epoch.
   *
   * @param read reads the run's events after a seq (the events query).
   * @param lastPassed the last seq passed on; a log that ends before it was replaced from its end.
   * @returns the first replaced seq: go on reading after `fromSeq - 1`.
   */
  async rewind(page: EventPage, read: (afterSeq: number, limit: number) => Promise<EventPage>, after: number, lastPassed: number): Promise<number> {
    const fromSeq = await this.firstReplacedSeq(read, after, lastPassed);
    this.epoch = page.epoch;
    for (const seq of [...this.passed.keys()]) if (seq >= fromSeq) this.passed.delete(seq);
    return fromSeq;
  }

  private async firstReplacedSeq(read: (afterSeq: number, limit: number) => Promise<EventPage>, from: number, lastPassed: number): Promise<number> {
    for (let after = from; ; ) {
      const page = await read(after, 1000);
      for (const event of page.events) if (this.passed.get(event.seq) !== event.at) return event.seq;
      if (page.events.length === 0) return Math.min(after + 1, lastPassed + 1);
      after = page.nextAfterSeq;
    }
  }
}
