/**
 * What a `tool_result` event shows of the call's result: the result itself when its JSON is
 * short, else the start of its JSON marked as cut (`resultBytes` gives the whole size). Events
 * are read by every follower and carried across continue-as-new within a byte budget, so they
 * hold a bounded view; the full result stays in the run's outputs and transcript.
 * Sandbox-safe (no Node APIs).
 */
import type { JsonValue } from './json';
import { wellFormed } from './safe-text';

/** Longest JSON of a result an event carries whole; longer ones are cut to this many characters. */
export const eventResultMaxChars = 2_000;

/** The fields a `tool_result` event adds for a result. */
export interface ResultInEvent {
  readonly result?: JsonValue;
  /** The first {@link eventResultMaxChars} characters of the result's JSON. */
  readonly resultPreview?: string;
  /** `resultPreview` is the start of a longer JSON. */
  readonly resultCut?: true;
}

/**
 * The event's view of a result (`undefined`: no result, as for a failed call). `preview`: what
 * the call recorded instead of a result it did not keep (over the workflow's byte budget).
 */
export function resultInEvent(result: unknown, preview?: string): ResultInEvent {
  if (result === undefined) return preview === undefined ? {} : cutPreview(preview);
  const json = JSON.stringify(result);
  if (json === undefined) return {};
  return json.length <= eventResultMaxChars ? { result: result as JsonValue } : cutPreview(json);
}

function cutPreview(json: string): ResultInEvent {
  if (json.length <= eventResultMaxChars) return { resultPreview: wellFormed(json) };
  return { resultPreview: wellFormed(json.slice(0, eventResultMaxChars)), resultCut: true };
}
