/**
 * A session's events: each decision about its messages and runs, numbered and timed, carried
 * across continue-as-new (the latest {@link maxSessionEvents}). Recording one writes to the
 * session's state only: no command, nothing in history.
 */
import type { ParsedSessionInput, SessionEvent, SessionEventDraft } from '../../contracts/session';
import { workflowNowIso } from '../kernel/clock';

/** How many events a session keeps (and carries across continue-as-new). */
export const maxSessionEvents = 500;

/** Records an event of the session. */
export function recordSessionEvent(state: Pick<ParsedSessionInput, 'events' | 'lastEventSeq'>, draft: SessionEventDraft): void {
  const seq = (state.lastEventSeq ?? 0) + 1;
  state.lastEventSeq = seq;
  const events = (state.events ??= []);
  events.push({ seq, at: workflowNowIso(), ...draft } as SessionEvent);
  if (events.length > maxSessionEvents) events.splice(0, events.length - maxSessionEvents);
}

/** The events after `afterSeq`, oldest first, and the last seq. */
export function sessionEventsAfter(state: Pick<ParsedSessionInput, 'events' | 'lastEventSeq'>, afterSeq = 0): { events: SessionEvent[]; lastSeq: number } {
  return { events: (state.events ?? []).filter((e) => e.seq > afterSeq), lastSeq: state.lastEventSeq ?? 0 };
}
