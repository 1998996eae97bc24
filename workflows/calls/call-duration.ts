import { minUnchargedWaitMs } from '../state/budget';

/** When a call was dispatched and recorded (workflow clock), and when its tool said it ended (its worker's clock). */
export interface CallTimes {
  readonly dispatchedMs: number;
  readonly recordedMs: number;
  /** Absent when the tool did not report it (older workers, failures). */
  readonly endedAtMs?: number | undefined;
}

/**
 * A call's duration: from its dispatch to the task that records its output (`measuredMs`), and
 * the part of it that was the tool's (`workMs`). They differ when the tool reported its end
 * {@link minUnchargedWaitMs} or more before the recording: the wait between was no worker
 * recording it (a rewind's reset records it again, minutes or days later; a workflow worker
 * outage), and `workMs` ends at the tool's end. Within that second the two clocks may disagree,
 * and the recording counts. Never more than was measured, whatever the worker's clock says.
 */
export function callDuration(times: CallTimes): { readonly measuredMs: number; readonly workMs: number } {
  const measuredMs = times.recordedMs - times.dispatchedMs;
  const { endedAtMs } = times;
  if (endedAtMs === undefined || times.recordedMs - endedAtMs < minUnchargedWaitMs) return { measuredMs, workMs: measuredMs };
  return { measuredMs, workMs: Math.max(0, Math.min(measuredMs, endedAtMs - times.dispatchedMs)) };
}
