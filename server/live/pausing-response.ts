import type { RunEvent } from '../../contracts';
import { ApprovalPause } from './approval-pause';
import type { FeedItem } from './feed-item';
import type { SseFrame, StreamFeedOptions } from './sse';

/** A projection of a run's feed onto a front end's protocol (the AI SDK chat, AG-UI). */
export interface PausableProjection<P> {
  /** The parts of one feed item. */
  item(item: FeedItem): P[];
  /** Called once the items the client already has were taken in (their parts dropped). */
  continueAfterPause(): void;
}

/** Options of {@link pausingResponse}. */
export interface PausingResponseOptions<P> {
  readonly projection: PausableProjection<P>;
  /** The last event the client has: its previous response ended there (0: it has nothing). */
  readonly shownSeq: number;
  /** Approvals this request answered, which wait no more even before the feed shows their decisions. */
  readonly answered?: readonly string[];
  /**
   * The approvals the run waits for now, when the request answered none: a client asking again
   * while the run still waits where its last response ended gets that pause again at once.
   */
  readonly waitingNow?: readonly string[];
  /** The parts of the run's end, from its `end` item on; `lastSeq`: the last event sent. */
  readonly end: (item: Extract<FeedItem, { type: 'end' }>, lastSeq: number) => P[];
  /** The parts that end the response where the run waits for people (`pending`: the approvals it waits for). */
  readonly pause: (lastSeq: number, pending: readonly string[]) => P[];
  /**
   * The response shows the run from the first event this matches on (those before it taken in
   * silently): a session chat's steered message is answered from where the run took it.
   */
  readonly liveFrom?: (event: RunEvent) => boolean;
  /**
   * A shown event this matches ends the response before it, with `handOff`'s parts (`lastSeq`: the
   * last event sent): the run goes on in another response (a later message steered into it).
   */
  readonly endBefore?: (event: RunEvent) => boolean;
  readonly handOff?: (lastSeq: number, event: RunEvent) => P[];
  readonly frames: (parts: readonly P[]) => SseFrame[];
}

/**
 * One response of a front end that follows a run in stretches: the feed's items after
 * `shownSeq` through the projection, the ones up to it taken in silently (the client has them),
 * until the run's open turn waits for people ({@link ApprovalPause}) or the run ends. The
 * client's answers start the next response, which continues after the last event this one sent.
 */
export function pausingResponse<P>(options: PausingResponseOptions<P>): Pick<StreamFeedOptions, 'render' | 'stopAfter'> {
  const { projection, shownSeq, waitingNow, liveFrom, endBefore } = options;
  const pause = new ApprovalPause(options.answered ?? []);
  let lastSeq = shownSeq;
  let live = shownSeq === 0 && !liveFrom;
  let paused = false;
  const stop = (parts: P[]): SseFrame[] => {
    paused = true;
    return options.frames([...parts, ...options.pause(lastSeq, pause.pendingApprovals)]);
  };
  return {
    render: (item) => {
      if (item.type === 'event') pause.see(item.event);
      if (item.type === 'reset') pause.reset();
      if (!live) {
        if (item.type !== 'event' || item.event.seq <= shownSeq || (liveFrom && !liveFrom(item.event))) {
          // The client has it already: the projection takes it in, its parts are not sent.
          projection.item(item);
          if (item.type === 'event' && item.event.seq === shownSeq && waitingNow && isSameWait(pause, waitingNow)) {
            live = true;
            projection.continueAfterPause();
            return stop([]);
          }
          return [];
        }
        live = true;
        projection.continueAfterPause();
      }
      if (item.type === 'event' && endBefore?.(item.event)) {
        paused = true;
        return options.frames(options.handOff?.(lastSeq, item.event) ?? []);
      }
      if (item.type === 'event') lastSeq = item.event.seq;
      if (item.type === 'end') return options.frames(options.end(item, lastSeq));
      const parts = projection.item(item);
      if (item.type !== 'event' || !pause.waitingForPeople) return options.frames(parts);
      return stop(parts);
    },
    stopAfter: () => paused,
  };
}

/** Whether the run waits, at this point of its log, for exactly the approvals it waits for now. */
function isSameWait(pause: ApprovalPause, waitingNow: readonly string[]): boolean {
  const pending = pause.pendingApprovals;
  return pause.waitingForPeople && pending.length === waitingNow.length && pending.every((id) => waitingNow.includes(id));
}
