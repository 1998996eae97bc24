import type { EventPage, RunEvent } from '../contracts';
import { AgentClientError } from './errors';
import { EventLogCursor } from './event-log-cursor';
import { PollPacing } from './poll-pacing';

const terminalStatuses = new Set(['completed', 'failed', 'terminated']);

/** Options of {@link RunHandle.follow}. */
export interface FollowOptions {
  /** Yield the events after this seq (reconnect by passing the last seq seen). Default 0. */
  readonly afterSeq?: number;
  /** The longest wait between two reads of a quiet run. Default 1 s. */
  readonly pollMs?: number;
  /** `long-poll`: wait on the `waitForEvents` update, which writes to the run's history. Default `poll`. */
  readonly mode?: 'long-poll' | 'poll';
  /** Deadline of each events query (default: three tries of 5, 10 and 20 s). */
  readonly queryTimeoutMs?: number;
  /** Called when a rewind replaced the events from `fromSeq` on. */
  readonly onRewind?: (rewind: { epoch: string; fromSeq: number }) => void;
}

/** What following a run reads of it. */
export interface FollowedRun {
  events(afterSeq: number, limit: number, options: { timeoutMs?: number }): Promise<EventPage>;
  /** The `waitForEvents` update: resolves when events after `afterSeq` exist or `timeoutMs` passed. */
  longPoll(afterSeq: number, timeoutMs: number): Promise<EventPage>;
  isClosed(): Promise<boolean>;
}

/**
 * Yields every event of `run` from `options.afterSeq` on, until the run ends (see
 * {@link RunHandle.follow}): the events query, soon again after news and less often while the
 * run is quiet; across a rewind it goes on from the first replaced seq.
 */
export async function* followRun(run: FollowedRun, options: FollowOptions = {}): AsyncGenerator<RunEvent> {
  let afterSeq = options.afterSeq ?? 0;
  const pacing = new PollPacing({ maxMs: options.pollMs ?? 1_000 });
  const queryOptions = options.queryTimeoutMs !== undefined ? { timeoutMs: options.queryTimeoutMs } : {};
  const read = (after: number, limit: number): Promise<EventPage> => run.events(after, limit, queryOptions);
  const cursor = new EventLogCursor();
  let closed = false;
  for (;;) {
    const page = await read(afterSeq, 200);
    if (cursor.isRewound(page)) {
      const fromSeq = await cursor.rewind(page, read, options.afterSeq ?? 0, afterSeq);
      options.onRewind?.({ epoch: page.epoch, fromSeq });
      afterSeq = fromSeq - 1;
      closed = false;
      continue;
    }
    cursor.accept(page);
    for (const event of page.events) {
      cursor.passedOn(event);
      yield event;
    }
    afterSeq = page.nextAfterSeq;
    if (page.events.length > 0) {
      pacing.news();
      continue;
    }
    // A run that failed (a bug in agent code, an agent the worker lacks) ends without a
    // terminal event in its log: the closed execution ends the follow, after a last read.
    if (terminalStatuses.has(page.status) || closed) return;
    if (options.mode === 'long-poll') {
      closed = await run.longPoll(afterSeq, 30_000).then(
        () => false,
        (err: unknown) => {
          // The execution waited on closed: the run has ended, or goes on in a new execution
          // of the same workflow id (a rewind, a continue-as-new), which the next read reaches.
          if (err instanceof AgentClientError && err.type === 'run_ended') return run.isClosed();
          throw err;
        },
      );
    } else {
      await pacing.wait();
      // Asked only now and then once the run is quiet: a closed run says so in its events
      // (terminal status) unless it failed by a bug in agent code.
      closed = pacing.dueForClosedCheck ? await run.isClosed() : false;
    }
  }
}
