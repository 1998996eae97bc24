import { jsonByteLength } from '../../contracts/json';
import type { EventPage, RunEvent, RunEventDraft } from '../../contracts/events';
import type { RunStatus } from '../../contracts/run';
import { workflowNowMs } from '../kernel/clock';

/**
 * JSON bytes of one page of events or messages a query or update answers: well under gRPC's
 * 4 MB message limit. A page holds at least one item, whatever its size.
 */
export const pageMaxBytes = 1024 * 1024;

/** The longest prefix of `items` within `maxBytes` (at least one item). */
export function withinBytes<T>(items: readonly T[], maxBytes = pageMaxBytes): T[] {
  let bytes = 0;
  let count = 0;
  for (const item of items) {
    bytes += jsonByteLength(item) + 1;
    if (count > 0 && bytes > maxBytes) break;
    count += 1;
  }
  return items.slice(0, count);
}

/** The seq-numbered event log of a run, read by the events query. */
export class EventLog {
  private readonly events: RunEvent[];
  /** The workflow time of the newest event and its ISO text: a task's events share one time. */
  private stamp = { ms: Number.NaN, iso: '' };

  /**
   * @param nextSeq seq of the next event (continues across continue-as-new).
   * @param carried events carried over from the previous execution.
   */
  constructor(
    private nextSeq = 1,
    carried: readonly RunEvent[] = [],
    /** Same across continue-as-new, new after a rewind (see eventPageSchema.epoch). */
    readonly epoch?: string,
  ) {
    this.events = [...carried];
  }

  /** The newest events: at most `max` of them and `maxBytes` of JSON (at least one, if any). */
  tail(max: number, maxBytes = Number.POSITIVE_INFINITY): RunEvent[] {
    const newestFirst = withinBytes(this.events.slice(-max).reverse(), maxBytes);
    return newestFirst.reverse();
  }

  /** Appends an event, stamping seq and workflow time. */
  append(draft: RunEventDraft): RunEvent {
    const ms = workflowNowMs();
    if (ms !== this.stamp.ms) this.stamp = { ms, iso: new Date(ms).toISOString() };
    const event = { ...draft, seq: this.nextSeq++, at: this.stamp.iso } as RunEvent;
    this.events.push(event);
    return event;
  }

  /** seq of the newest event (0 when empty). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Up to `limit` events with seq > afterSeq, within {@link pageMaxBytes}; read on from `nextAfterSeq`. */
  page(afterSeq: number, limit: number, status: RunStatus): EventPage {
    const start = this.events.findIndex((e) => e.seq > afterSeq);
    const events = start < 0 ? [] : withinBytes(this.events.slice(start, start + limit));
    const last = events[events.length - 1];
    const first = events[0];
    const gap = first !== undefined && first.seq > afterSeq + 1;
    return {
      events,
      nextAfterSeq: last ? last.seq : Math.max(afterSeq, 0),
      status,
      ...(gap ? { missingBefore: first.seq } : {}),
      ...(this.epoch ? { epoch: this.epoch } : {}),
    };
  }
}
