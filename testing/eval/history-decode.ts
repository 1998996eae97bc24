import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import type { JsonValue } from '../../contracts';
import type { RecordedOutcome } from './recording-types';
import { RecordingError } from './recording-error';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payloads = temporal.api.common.v1.IPayloads | null | undefined;

/** The values of a history's payloads, as the default converter reads them. */
export function decode(payloads: Payloads): unknown[] {
  return (payloads?.payloads ?? []).map((p) => {
    try {
      return defaultPayloadConverter.fromPayload<unknown>(p);
    } catch (err) {
      const encoding = p.metadata?.encoding ? Buffer.from(p.metadata.encoding).toString() : 'unknown';
      throw new RecordingError(
        `a payload of encoding ${encoding} cannot be read (${err instanceof Error ? err.message : String(err)}); an encrypted history is read with the deployment's payload codecs (evaluateRuns' payloadCodecs; agentctl: DURABLE_AGENTS_ENCRYPTION_KEYS)`,
      );
    }
  });
}

/** Parses a model call's tool arguments as the planner does: JSON text, empty meaning `{}`; kept as text when it is not JSON. */
export function parseArguments(text: string): JsonValue {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** What a tool activity ended with, from the event that closed it. */
export function outcomeOf(close: HistoryEvent | undefined): RecordedOutcome {
  if (!close) return { kind: 'missing', reason: 'the call had not ended when the history was exported' };
  const completed = close.activityTaskCompletedEventAttributes;
  if (completed) {
    const value = asRecord(decode(completed.result)[0]);
    if (value.resultOmitted) return { kind: 'missing', reason: 'its result was too large and is not in the recording' };
    const changes = value.sessionStateChanges as Record<string, JsonValue | null> | undefined;
    return { kind: 'ok', result: (value.result ?? null) as JsonValue, ...(changes ? { sessionStateChanges: changes } : {}) };
  }
  const failure = close.activityTaskFailedEventAttributes?.failure;
  if (failure) {
    // The SDK wraps the tool's failure in an ActivityFailure only on the workflow side; history has the tool's own.
    const type = failure.applicationFailureInfo?.type ?? undefined;
    return { kind: 'error', message: failure.message ?? 'the tool failed', ...(type ? { type } : {}) };
  }
  if (close.activityTaskTimedOutEventAttributes) return { kind: 'error', message: 'the call timed out in the recording', type: 'timeout' };
  return { kind: 'missing', reason: 'the call was cancelled in the recording' };
}

/** The events that close an activity, by the id of the event that scheduled it. */
export function closingEvents(events: readonly HistoryEvent[]): Map<number, HistoryEvent> {
  const closed = new Map<number, HistoryEvent>();
  for (const e of events) {
    const attrs =
      e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes ?? e.activityTaskCanceledEventAttributes;
    if (attrs?.scheduledEventId != null) closed.set(Number(attrs.scheduledEventId), e);
  }
  return closed;
}

/** How an execution ended, from its last event: completed, failed, terminated, cancelled, timed_out, continued_as_new, or `open`. */
export function endingOf(last: HistoryEvent | undefined): string {
  if (!last) return 'open';
  if (last.workflowExecutionCompletedEventAttributes) return 'completed';
  if (last.workflowExecutionFailedEventAttributes) return 'failed';
  if (last.workflowExecutionTerminatedEventAttributes) return 'terminated';
  if (last.workflowExecutionCanceledEventAttributes) return 'cancelled';
  if (last.workflowExecutionTimedOutEventAttributes) return 'timed_out';
  if (last.workflowExecutionContinuedAsNewEventAttributes) return 'continued_as_new';
  return 'open';
}
