/**
 * How the live stream folds into the run page's timeline: pure functions, no browser APIs.
 */
import type { RunEvent, TokenDelta } from './types';

/** Text streamed by one model call in flight. */
export interface Streaming {
  readonly key: string;
  readonly turn: number;
  readonly kind: TokenDelta['kind'];
  readonly text: string;
}

/** Adds or replaces events by seq (a replayed event after a reconnect replaces its copy). */
export function mergeEvents(events: readonly RunEvent[], incoming: RunEvent): RunEvent[] {
  const rest = events.filter((e) => e.seq !== incoming.seq);
  rest.push(incoming);
  return rest.sort((a, b) => a.seq - b.seq);
}

/** Drops what a new log epoch replaces (a rewind): every event from `fromSeq` on. */
export function resetEvents(events: readonly RunEvent[], fromSeq: number): RunEvent[] {
  return events.filter((e) => e.seq < fromSeq);
}

/** Appends a token delta to its model call's text. */
export function addDelta(streaming: readonly Streaming[], delta: TokenDelta): Streaming[] {
  const key = delta.callId ?? delta.activityId ?? `turn-${delta.turn}`;
  const piece = delta.text ?? delta.delta ?? '';
  const found = streaming.find((s) => s.key === key);
  if (!found) return [...streaming, { key, turn: delta.turn, kind: delta.kind, text: piece }];
  return streaming.map((s) => (s === found ? { ...s, text: s.text + piece } : s));
}

/** Model calls still streaming once `event` is in the log: a plan or an end closes them. */
export function settle(streaming: readonly Streaming[], event: RunEvent): readonly Streaming[] {
  if (event.type === 'plan') return streaming.filter((s) => s.turn > event.turn);
  if (event.type === 'final' || event.type === 'run_failed' || event.type === 'run_terminated') return [];
  return streaming;
}
