import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { fetchDecodedHistory } from './decoded-history';
import { checkpointsOf } from './checkpoints';
import { interventionSchema, interveneSignal, type Intervention } from '../contracts';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * A rewind of a run as its history records it: a Temporal reset ends the execution it replaces
 * and starts a new one (same workflow id) whose history is the old one up to the boundary, then
 * a workflow task failed with cause `RESET_WORKFLOW` that names both executions and the reason.
 */
export interface RunRewind {
  /** The execution the rewind started: the run's log epoch from there on. */
  readonly runId: string;
  /** The execution it replaced: its events after the boundary are no longer the run's. */
  readonly replacedRunId: string;
  /** When the rewind happened (the Temporal server's clock, as the run's event times are). */
  readonly time: string;
  /** The turn the run went back to: it began again there (absent if the new execution has not begun it yet). */
  readonly turn?: number;
  /** The reset's event in the new execution's history. */
  readonly eventId: number;
  /** The reason given to the rewind (`rewind to turn N` unless the operator said otherwise). */
  readonly reason: string;
  /** Corrections applied at the rewind point (interventions recorded before the reset and re-applied there). */
  readonly corrections: readonly Intervention[];
}

const resetCause = temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW;

function eventTime(event: HistoryEvent): string {
  const seconds = Number(event.eventTime?.seconds ?? 0);
  return new Date(seconds * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6)).toISOString();
}

/** An `intervene` signal's correction, when it parses as one. */
function correctionOf(event: HistoryEvent): Intervention | undefined {
  const signal = event.workflowExecutionSignaledEventAttributes;
  const payload = signal?.signalName === interveneSignal.name ? signal.input?.payloads?.[0] : undefined;
  if (!payload) return undefined;
  try {
    const parsed = interventionSchema.safeParse(defaultPayloadConverter.fromPayload<unknown>(payload as temporal.api.common.v1.IPayload));
    return parsed.success ? (parsed.data as Intervention) : undefined;
  } catch {
    // A payload this reader cannot decode (a codec it was not given) is no correction it can show.
    return undefined;
  }
}

/**
 * The rewinds one execution's history records, oldest first: each reset event, the turn whose
 * boundary the run began again at (the first boundary after it), and the corrections re-applied
 * with it (the `intervene` signals between it and the next completed workflow task).
 */
export function rewindsOf(events: readonly HistoryEvent[]): RunRewind[] {
  const checkpoints = checkpointsOf(events);
  const rewinds: RunRewind[] = [];
  events.forEach((event, i) => {
    const failed = event.workflowTaskFailedEventAttributes;
    if (failed?.cause !== resetCause) return;
    const eventId = Number(event.eventId);
    const corrections: Intervention[] = [];
    for (const next of events.slice(i + 1)) {
      if (next.workflowTaskCompletedEventAttributes) break;
      const correction = correctionOf(next);
      if (correction) corrections.push(correction);
    }
    const turn = checkpoints.find((c) => c.eventId > eventId)?.turn;
    rewinds.push({
      runId: failed.newRunId ?? '',
      replacedRunId: failed.baseRunId ?? '',
      time: eventTime(event),
      ...(turn !== undefined ? { turn } : {}),
      eventId,
      reason: failed.failure?.message ?? '',
      corrections,
    });
  });
  return rewinds;
}

/** Executions read at most, the latest and those it continued from. */
export const maxRewindExecutions = 4;

/**
 * The rewinds of a run, oldest first: those the history of its latest execution (or `runId`)
 * records, and those of the executions it continued as new from, up to
 * {@link maxRewindExecutions} executions in all. Reads histories only: nothing is written to the
 * run and no worker is needed.
 *
 * @throws WorkflowNotFoundError for an unknown run.
 */
export async function runRewinds(client: Client, workflowId: string, runId?: string): Promise<RunRewind[]> {
  const found: RunRewind[][] = [];
  let execution = runId;
  for (let read = 0; read < maxRewindExecutions; read++) {
    const events = (await fetchDecodedHistory(client, workflowId, execution)).events ?? [];
    found.unshift(rewindsOf(events));
    execution = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!execution) break;
  }
  return found.flat();
}
