/** What a run's follower does with an announcement of new events. */
export type WakeDecision =
  /** Read now. */
  | { readonly type: 'now' }
  /** Read in `inMs`, then call {@link WakeCoalescer.fired}. */
  | { readonly type: 'later'; readonly inMs: number }
  /** A read is already due: this announcement rides on it. */
  | { readonly type: 'coalesced' };

/**
 * Coalesces the announcements of a run's new events into at most one read per `minIntervalMs`,
 * whatever arrives: an announcement only says "read sooner", so a publisher that floods them (a
 * busy worker, a broken or hostile one) costs the run a few events queries a second, not one per
 * announcement. No timers of its own: the caller passes the time and keeps the one timer a
 * `later` answer asks for.
 */
export class WakeCoalescer {
  /** When the last wake went through (a read at once, or a deferred one firing). */
  private lastWake = Number.NEGATIVE_INFINITY;
  private due = false;

  constructor(private readonly minIntervalMs = 250) {}

  /** An announcement arrived at `now` (ms). */
  wake(now: number): WakeDecision {
    if (this.due) return { type: 'coalesced' };
    const next = this.lastWake + this.minIntervalMs;
    if (now >= next) {
      this.lastWake = now;
      return { type: 'now' };
    }
    this.due = true;
    return { type: 'later', inMs: next - now };
  }

  /** The deferred wake of a `later` answer went through at `now`. */
  fired(now: number): void {
    this.due = false;
    this.lastWake = now;
  }

  /** Forgets a deferred wake (its timer was cleared: the follower stopped). */
  cancel(): void {
    this.due = false;
  }
}
