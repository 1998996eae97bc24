import type { EventPage, RunEvent, RunEventDraft, RunStatus } from '../contracts';
import { workflowNowIso } from './clock';

/** The seq-numbered event log of a run, read by the events query. */
export class EventLog {
  private readonly events: RunEvent[];

  /**
   * @param nextSeq seq of the next event (continues across continue-as-new).
   * @param carried events carried over from the previous execution.
   */
  constructor(
    private nextSeq = 1,
    carried: readonly RunEvent[] = [],
  ) {
    this.events = [...carried];
  }

  /** The newest `max` events. */
  tail(max: number): RunEvent[] {
    return this.events.slice(-max);
  }

  /** Appends an event, stamping seq and workflow time. */
  append(draft: RunEventDraft): RunEvent {
    const event = { ...draft, seq: this.nextSeq++, at: workflowNowIso() } as RunEvent;
    this.events.push(event);
    return event;
  }

  /** seq of the newest event (0 when empty). */
  get lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Up to `limit` events with seq > afterSeq. */
  page(afterSeq: number, limit: number, status: RunStatus): EventPage {
    const start = this.events.findIndex((e) => e.seq > afterSeq);
    const events = start < 0 ? [] : this.events.slice(start, start + limit);
    const last = events[events.length - 1];
    const first = events[0];
    const gap = first !== undefined && first.seq > afterSeq + 1;
    return { events, nextAfterSeq: last ? last.seq : Math.max(afterSeq, 0), status, ...(gap ? { missingBefore: first.seq } : {}) };
  }
}
