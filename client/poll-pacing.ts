/**
 * How often a follower reads a run's events query. A query adds nothing to the run's history (an
 * update would add four or more events per wait, and count toward Temporal's limit of updates
 * per execution), so followers read by query and pace themselves: soon after news, then less
 * often while the run is quiet, and at once when something announces new events
 * ({@link PollPacing.wake}).
 */
export interface PollPacingOptions {
  /** The delay after a read that brought events. Default 100 ms. */
  readonly minMs?: number;
  /** The longest delay while nothing arrives. Default 1000 ms. */
  readonly maxMs?: number;
}

export class PollPacing {
  private readonly minMs: number;
  private readonly maxMs: number;
  private delayMs: number;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  /** Waits at the longest delay since the last news. */
  private quietWaits = 0;

  constructor(options: PollPacingOptions = {}) {
    this.minMs = Math.max(1, options.minMs ?? 100);
    this.maxMs = Math.max(this.minMs, options.maxMs ?? 1000);
    this.delayMs = this.minMs;
  }

  /** Whether the delay has grown to its longest: the run has been quiet for a while. */
  get quiet(): boolean {
    return this.delayMs >= this.maxMs;
  }

  /**
   * Whether it is time to ask what no event says (has the run's execution closed without a
   * terminal event, e.g. by a bug in agent code?): every third wait once the run is quiet.
   */
  get dueForClosedCheck(): boolean {
    return this.quietWaits > 0 && this.quietWaits % 3 === 0;
  }

  /** A read brought events: the next wait is short again. */
  news(): void {
    this.delayMs = this.minMs;
    this.quietWaits = 0;
  }

  /**
   * Waits before the next read: the current delay (which then doubles, up to the longest), or
   * less when {@link wake} is called or `signal` aborts.
   */
  wait(signal?: AbortSignal): Promise<void> {
    const delay = this.delayMs;
    if (this.quiet) this.quietWaits += 1;
    this.delayMs = Math.min(this.maxMs, this.delayMs * 2);
    if (this.woken || signal?.aborted) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, delay);
      signal?.addEventListener('abort', done, { once: true });
      this.wakeUp = done;
    });
  }

  /**
   * Something announced new events: the wait in progress (or the next one) ends now. The delay
   * stays: a read that finds the events calls {@link news}, and one that finds none (an
   * announcement of nothing new) is no reason to read more often.
   */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }
}
