import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { RunWorkerVersion } from './worker-version';
import { runResultSchema, toolActivityInputSchema, toolCallFromActivity, type RunResult } from '../contracts';
import { turnsBegun } from '../history/checkpoints';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payloads = temporal.api.common.v1.IPayloads | null | undefined;

/**
 * What a run's Temporal history says about it, for when no worker answers its queries (none is
 * running, or the run failed before it could register them). Coarser than the status query: no
 * pending calls, controls or budget, which live in the run's memory.
 */
export interface HistoryStatus {
  readonly source: 'history';
  readonly workflowId: string;
  readonly runId: string;
  readonly agent: string | null;
  /** AgentStatus as the run last reported it, else Temporal's status in lower case. */
  readonly status: string;
  /** Temporal's execution status (RUNNING, COMPLETED, FAILED, …). */
  readonly workflowStatus: string;
  /** Turns begun (named in history by their boundaries, activities and local tool calls). */
  readonly turns: number;
  readonly toolCalls: number;
  readonly modelCalls: number;
  readonly historyLength: number;
  readonly startTime: string;
  readonly closeTime: string | null;
  /** The worker version the run is on (all null when its workers are unversioned). */
  readonly workerVersion: RunWorkerVersion;
  /** Why the run failed, when it did. */
  readonly failure?: string;
  /** The run's result, when it completed. */
  readonly result?: RunResult;
}

/** One step of a run as its Temporal history records it (not the run's own event log). */
export interface HistoryEntry {
  readonly eventId: number;
  readonly time: string;
  readonly kind:
    | 'run_started'
    | 'tool_call'
    | 'tool_done'
    | 'tool_failed'
    | 'tool_cancelled'
    | 'model_call'
    | 'signal'
    | 'update'
    | 'task_failed'
    | 'run_completed'
    | 'run_failed'
    | 'run_terminated'
    | 'run_timed_out'
    | 'run_canceled'
    | 'continued_as_new';
  readonly detail: string;
}

function eventTime(event: HistoryEvent): string {
  const seconds = Number(event.eventTime?.seconds ?? 0);
  return new Date(seconds * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6)).toISOString();
}

function firstPayload(payloads: Payloads): unknown {
  const payload = payloads?.payloads?.[0];
  if (!payload) return undefined;
  try {
    return defaultPayloadConverter.fromPayload<unknown>(payload as temporal.api.common.v1.IPayload);
  } catch {
    return undefined;
  }
}

function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function toolName(activityType: string): string {
  // Tool activities are typed `<agent>/<tool>` (bare `<tool>` in runs recorded by 0.1.0).
  return activityType.split('/').at(-1) ?? activityType;
}

/** A local tool's call, from the marker that records it: its tool, its summary (`turn N: tool`) and its failure. */
function localToolCall(event: HistoryEvent): { tool: string; summary: string; failure?: string } | undefined {
  const marker = event.markerRecordedEventAttributes;
  if (marker?.markerName !== 'core_local_activity') return undefined;
  const data = firstPayload(marker.details?.data) as { activity_type?: unknown } | undefined;
  const type = typeof data?.activity_type === 'string' ? data.activity_type : '?';
  const summary = event.userMetadata?.summary ? firstPayload({ payloads: [event.userMetadata.summary] }) : undefined;
  return {
    tool: toolName(type),
    summary: typeof summary === 'string' ? summary : type,
    ...(marker.failure ? { failure: marker.failure.message ?? 'failed' } : {}),
  };
}

/** The steps of one execution's history, oldest first. */
export function historyEntries(events: readonly HistoryEvent[]): HistoryEntry[] {
  const entries: HistoryEntry[] = [];
  const scheduled = new Map<string, string>();
  for (const event of events) {
    const at = { eventId: Number(event.eventId ?? 0), time: eventTime(event) };
    const push = (kind: HistoryEntry['kind'], detail: string): void => {
      entries.push({ ...at, kind, detail: clip(detail) });
    };
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) {
      const input = firstPayload(started.input) as { agent?: unknown; messages?: unknown[] } | undefined;
      push('run_started', `agent=${String(input?.agent ?? '?')} messages=${Array.isArray(input?.messages) ? input.messages.length : 0}`);
    }
    const activity = event.activityTaskScheduledEventAttributes;
    if (activity) {
      const type = activity.activityType?.name ?? '?';
      scheduled.set(String(event.eventId), type);
      if (type === 'callModel') push('model_call', 'model call');
      else {
        const request = toolActivityInputSchema.unwrap().shape.request.safeParse((firstPayload(activity.input) as { request?: unknown } | undefined)?.request);
        // A compact input (0.6.0) leaves the name and call id to the activity's type and id.
        const call = toolCallFromActivity({ activityType: type, activityId: activity.activityId ?? '' });
        const name = (request.success ? request.data.name : undefined) ?? call.tool ?? toolName(type);
        const id = (request.success ? request.data.toolCallId : undefined) ?? call.toolCallId ?? '?';
        push('tool_call', request.success ? `${name}(${id}) ${JSON.stringify(request.data.args)}` : toolName(type));
      }
    }
    const local = localToolCall(event);
    if (local) {
      // A local activity is recorded once, when it has ended: its call and its outcome in one event.
      push('tool_call', `${local.tool} (local, ${local.summary})`);
      if (local.failure === undefined) push('tool_done', local.tool);
      else push('tool_failed', `${local.tool}: ${local.failure}`);
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) {
      const type = scheduled.get(String(completed.scheduledEventId)) ?? '?';
      if (type !== 'callModel') push('tool_done', toolName(type));
    }
    const failed = event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes;
    if (failed) {
      const type = scheduled.get(String(failed.scheduledEventId)) ?? '?';
      push('tool_failed', `${type === 'callModel' ? 'model call' : toolName(type)}: ${failed.failure?.message ?? 'failed'}`);
    }
    const cancelled = event.activityTaskCanceledEventAttributes;
    if (cancelled) {
      const type = scheduled.get(String(cancelled.scheduledEventId)) ?? '?';
      push('tool_cancelled', type === 'callModel' ? 'model call' : toolName(type));
    }
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal) push('signal', signal.signalName ?? '?');
    const update = event.workflowExecutionUpdateAcceptedEventAttributes;
    if (update) push('update', update.acceptedRequest?.input?.name ?? '?');
    const taskFailed = event.workflowTaskFailedEventAttributes;
    if (taskFailed) push('task_failed', taskFailed.failure?.message ?? 'workflow task failed');
    if (event.workflowExecutionCompletedEventAttributes) {
      const result = runResultSchema.safeParse(firstPayload(event.workflowExecutionCompletedEventAttributes.result));
      push('run_completed', result.success ? `${result.data.status}${result.data.final ? `: ${result.data.final.text}` : ''}` : 'completed');
    }
    const runFailed = event.workflowExecutionFailedEventAttributes;
    if (runFailed) push('run_failed', runFailed.failure?.message ?? 'failed');
    const terminated = event.workflowExecutionTerminatedEventAttributes;
    if (terminated) push('run_terminated', terminated.reason || 'terminated');
    if (event.workflowExecutionTimedOutEventAttributes) push('run_timed_out', 'timed out');
    if (event.workflowExecutionCanceledEventAttributes) push('run_canceled', 'canceled');
    if (event.workflowExecutionContinuedAsNewEventAttributes) push('continued_as_new', 'continued as new');
  }
  return entries;
}

/** Counts and outcome of one execution, from its history. */
export function historySummary(events: readonly HistoryEvent[]): Pick<HistoryStatus, 'turns' | 'toolCalls' | 'modelCalls' | 'failure' | 'result'> {
  const entries = historyEntries(events);
  const failure = entries.find((e) => e.kind === 'run_failed')?.detail;
  const completed = events.find((e) => e.workflowExecutionCompletedEventAttributes)?.workflowExecutionCompletedEventAttributes;
  const result = completed ? runResultSchema.safeParse(firstPayload(completed.result)) : undefined;
  return {
    turns: turnsBegun(events),
    toolCalls: entries.filter((e) => e.kind === 'tool_call').length,
    modelCalls: entries.filter((e) => e.kind === 'model_call').length,
    ...(failure !== undefined ? { failure } : {}),
    ...(result?.success ? { result: result.data } : {}),
  };
}

/** A history entry on one line: `h12  2026-…  tool_call    echo {"text":"hi"}`. */
export function formatHistoryEntry(e: HistoryEntry): string {
  return `h${String(e.eventId).padEnd(4)} ${e.time}  ${e.kind.padEnd(15)} ${e.detail}`;
}
