import type { Client } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { summarize, type Summary } from './stats';

/** A workflow history as fetched by the client. */
export type FetchedHistory = Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>;

/** Where the time of a turn goes, from server event times (over every task of a run). */
export interface TurnPhases {
  /** ActivityTaskScheduled → ActivityTaskStarted: dispatch of the tool call to the worker (≈0 when eager). */
  readonly activityScheduleToStartMs: Summary;
  /** ActivityTaskStarted → ActivityTaskCompleted: the no-op tool plus the completion RPC. */
  readonly activityStartToCloseMs: Summary;
  /** WorkflowTaskScheduled → WorkflowTaskStarted: dispatch of the next planner turn to the worker. */
  readonly workflowTaskScheduleToStartMs: Summary;
  /** WorkflowTaskStarted → WorkflowTaskCompleted: workflow code (planner, bookkeeping) plus the completion RPC. */
  readonly workflowTaskStartToCloseMs: Summary;
}

/** Numeric values of temporal.api.enums.v1.EventType used here (stable proto enum values). */
const eventType = {
  workflowTaskStarted: 6,
  workflowTaskCompleted: 7,
  activityTaskScheduled: 10,
  activityTaskStarted: 11,
  activityTaskCompleted: 12,
} as const;

/**
 * Splits the histories of a run (every execution, when it continued as new) into per-task
 * phases using the server's event times.
 *
 * @throws Error when the histories hold no workflow or activity tasks.
 */
export function turnPhases(histories: readonly FetchedHistory[]): TurnPhases {
  const phases = { aSched: [] as number[], aRun: [] as number[], wSched: [] as number[], wRun: [] as number[] };
  for (const history of histories) {
    // Event ids restart in every execution.
    const timeById = new Map<number, number>();
    const since = (id: unknown, at: number): number => at - (timeById.get(Number(id)) ?? at);
    for (const e of history.events ?? []) {
      const at = tsToMs(e.eventTime);
      timeById.set(Number(e.eventId), at);
      if (e.eventType === eventType.activityTaskStarted) phases.aSched.push(since(e.activityTaskStartedEventAttributes?.scheduledEventId, at));
      if (e.eventType === eventType.activityTaskCompleted) phases.aRun.push(since(e.activityTaskCompletedEventAttributes?.startedEventId, at));
      if (e.eventType === eventType.workflowTaskStarted) phases.wSched.push(since(e.workflowTaskStartedEventAttributes?.scheduledEventId, at));
      if (e.eventType === eventType.workflowTaskCompleted) phases.wRun.push(since(e.workflowTaskCompletedEventAttributes?.startedEventId, at));
    }
  }
  return {
    activityScheduleToStartMs: summarize(phases.aSched),
    activityStartToCloseMs: summarize(phases.aRun),
    workflowTaskScheduleToStartMs: summarize(phases.wSched),
    workflowTaskStartToCloseMs: summarize(phases.wRun),
  };
}

/**
 * Turn durations of a run from its histories alone, without the events query (which would
 * replay a closed run once per page). A turn's `plan` event carries the workflow clock of the
 * workflow task that scheduled the turn's tool calls, i.e. that task's WorkflowTaskStarted
 * time; the gaps between consecutive such tasks are the plan→plan spans of the event log
 * (continue-as-new included). T tool turns give T−1 spans.
 */
export function turnSpansFromHistoryMs(histories: readonly FetchedHistory[]): number[] {
  const planTimes: number[] = [];
  for (const history of histories) {
    let taskStartedAt: number | undefined;
    for (const e of history.events ?? []) {
      if (e.eventType === eventType.workflowTaskStarted) taskStartedAt = tsToMs(e.eventTime);
      if (e.eventType === eventType.activityTaskScheduled && taskStartedAt !== undefined) {
        planTimes.push(taskStartedAt);
        taskStartedAt = undefined; // one plan per workflow task, however many calls it scheduled
      }
    }
  }
  return planTimes.slice(1).map((t, i) => t - (planTimes[i] ?? t));
}
