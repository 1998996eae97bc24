/**
 * How the live stream folds into the run page's timeline: pure functions, no browser APIs.
 */
import type { RunEvent, RunRewind, TokenDelta } from './types';

/** Text streamed by one model call in flight. */
export interface Streaming {
  /** The model activity's id. */
  readonly key: string;
  readonly attempt: number;
  /** The turn the call plans, when the worker knew it. */
  readonly turn?: number | undefined;
  readonly kind: TokenDelta['kind'];
  /** For tool arguments: the tool's name once streamed. */
  readonly toolName?: string | undefined;
  readonly text: string;
}

/** Adds or replaces events by seq (a replayed event after a reconnect replaces its copy). */
export function mergeEvents(events: readonly RunEvent[], incoming: RunEvent): RunEvent[] {
  const rest = events.filter((e) => e.seq !== incoming.seq);
  rest.push(incoming);
  return rest.sort((a, b) => a.seq - b.seq);
}

/** A rewind seen on the live feed: the log was replaced from `fromSeq` on, at `at` (browser clock). */
export interface Rewind {
  readonly fromSeq: number;
  readonly at: string;
}

/** The rewinds after one more: markers of replaced events go with them. */
export function addRewind(rewinds: readonly Rewind[], fromSeq: number, at: string): Rewind[] {
  return [...rewinds.filter((r) => r.fromSeq < fromSeq), { fromSeq, at }];
}

/**
 * A rewind the timeline marks: one the run's history records (`recorded`: its turn, reason and
 * corrections, placed by time), or, until those are read, one seen on the live feed (placed by seq).
 */
export interface RewindMarker {
  readonly key: string;
  /** When it happened. */
  readonly at: string;
  readonly fromSeq?: number;
  readonly recorded?: RunRewind;
}

/**
 * The markers to show: the recorded rewinds once read (they outlive the page and name the turn);
 * before that, the ones the live feed showed.
 */
export function rewindMarkers(live: readonly Rewind[], recorded: readonly RunRewind[] | undefined): RewindMarker[] {
  if (recorded) return recorded.map((r) => ({ key: `${r.runId}/${r.eventId}`, at: r.time, recorded: r }));
  return live.map((r) => ({ key: `live-${r.at}`, at: r.at, fromSeq: r.fromSeq }));
}

/**
 * The seq of the event a marker goes before: the first event from the rewind on. A recorded
 * rewind is placed by time: the events of the new execution happened after it, those it kept
 * before it (both on the Temporal server's clock). Undefined: after the last event.
 */
export function markerSeq(events: readonly RunEvent[], marker: RewindMarker): number | undefined {
  const { fromSeq } = marker;
  if (fromSeq !== undefined) return events.find((e) => e.seq >= fromSeq)?.seq;
  const at = Date.parse(marker.at);
  return events.find((e) => Date.parse(e.at) >= at)?.seq;
}

/** Drops what a new log epoch replaces (a rewind): every event from `fromSeq` on. */
export function resetEvents(events: readonly RunEvent[], fromSeq: number): RunEvent[] {
  return events.filter((e) => e.seq < fromSeq);
}

/**
 * Appends a token delta to its model call's text. A retried call (a higher attempt) streams
 * again from scratch, so its text replaces the failed attempt's.
 */
export function addDelta(streaming: readonly Streaming[], delta: TokenDelta): Streaming[] {
  const key = delta.kind === 'tool-args' ? `${delta.activityId}/${delta.toolCallId ?? ''}` : delta.activityId;
  const found = streaming.find((s) => s.key === key);
  const fresh: Streaming = { key, attempt: delta.attempt, turn: delta.turn, kind: delta.kind, toolName: delta.toolName, text: delta.text };
  if (!found) return [...streaming, fresh];
  if (delta.attempt > found.attempt) return streaming.map((s) => (s === found ? fresh : s));
  if (delta.attempt < found.attempt) return [...streaming];
  return streaming.map((s) => (s === found ? { ...s, toolName: s.toolName ?? delta.toolName, text: s.text + delta.text } : s));
}

/** Model calls still streaming once `event` is in the log: its plan (the call's answer) or the run's end closes them. */
export function settle(streaming: readonly Streaming[], event: RunEvent): readonly Streaming[] {
  if (event.type === 'plan') return streaming.filter((s) => s.turn !== undefined && s.turn > event.turn);
  if (event.type === 'final' || event.type === 'run_failed' || event.type === 'run_terminated') return [];
  return streaming;
}
