import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import Long from 'long';
import { fetchDecodedHistory } from './decoded-history';
import { patchMarkerIds } from './patch-markers';
import { interventionSchema, interveneSignal, pauseUpdate, resumeUpdate, describeIssues, toolCallFromActivity, turnOfToolCallSummary, type Intervention } from '../contracts';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A turn boundary of a run: where `rewind --to-turn N` resets to. */
export interface Checkpoint {
  /** Turns completed at this boundary; rewinding here re-runs turn N+1 onwards (1-based). */
  readonly turn: number;
  /** The WorkflowTaskCompleted event a reset goes back to. */
  readonly eventId: number;
  readonly time: string;
  /** What happened in the turn that starts here. */
  readonly summary: {
    readonly toolCalls: string[];
    readonly modelCalls: number;
    readonly signals: string[];
    readonly updates: string[];
  };
}

/** Errors of checkpoint operations; match on `type`. */
export class CheckpointError extends Error {
  constructor(
    readonly type: 'no_such_turn' | 'invalid_input' | 'correction_refused',
    message: string,
  ) {
    super(message);
    this.name = 'CheckpointError';
  }
}

function decodeMemo(event: HistoryEvent): number | undefined {
  const payload = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.turnBoundary;
  if (!payload) return undefined;
  const value = defaultPayloadConverter.fromPayload<unknown>(payload as temporal.api.common.v1.IPayload);
  return typeof value === 'number' ? value : undefined;
}

function eventTime(event: HistoryEvent): string {
  const seconds = Number(event.eventTime?.seconds ?? 0);
  return new Date(seconds * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6)).toISOString();
}

/**
 * Patch ids after which activities mark turn boundaries: workflows/versioning/patches.ts
 * `turnBoundariesInCommands` (0.6.0), and the baseline markers that stand for it and every other
 * patch in runs since 0.9.0 (the `releases` of workflows/versioning/patches.ts). The client does not
 * import workflow code; the corpus test of the histories since 0.6.0 fails if they part.
 */
const boundariesByCommandsPatchIds: readonly string[] = ['turn-boundaries-in-commands', 'baseline-0.9.0', 'baseline-0.10.0', 'baseline-0.11.0', 'baseline-0.12.0', 'baseline-0.13.0', 'baseline-1.0.0'];

/**
 * Baseline markers of runs whose first task begins turn 0 without a mark of its own:
 * workflows/versioning/patches.ts `firstTaskBeginsRun` (1.0.0, in its baseline).
 */
const firstTaskBeginsRunPatchIds: readonly string[] = ['baseline-1.0.0'];

/** Whether the event is the marker of a patch with one of these ids. */
function isPatchMarker(event: HistoryEvent, patchIds: readonly string[]): boolean {
  return patchMarkerIds(event).some((id) => patchIds.includes(id));
}

/** The turn an activity id names (`turn-<N>/…`: tool calls, and model calls of newer runs). */
function activityTurn(event: HistoryEvent): number | undefined {
  const activity = event.activityTaskScheduledEventAttributes;
  return activity?.activityId ? toolCallFromActivity({ activityType: activity.activityType?.name ?? '', activityId: activity.activityId }).turn : undefined;
}

/**
 * The first task of a run since 1.0.0 when it names no turn (no memo change, no turn activity):
 * the run's turn 0 boundary, which the run no longer marks. A continued or forked execution
 * names the turn its first task begins, and gets none.
 */
function unmarkedFirstTask(events: readonly HistoryEvent[]): HistoryEvent | undefined {
  if (events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId) return undefined;
  if (!events.some((e) => isPatchMarker(e, firstTaskBeginsRunPatchIds))) return undefined;
  const first = events.findIndex((e) => e.workflowTaskCompletedEventAttributes);
  if (first < 0) return undefined;
  for (const event of events.slice(first + 1)) {
    if (event.workflowTaskScheduledEventAttributes) break;
    if (decodeMemo(event) !== undefined || activityTurn(event) !== undefined) return undefined;
  }
  return events[first];
}

/**
 * The turn an execution began in the middle of: a run that continued as new while it waited for
 * people (its carried state has `openTurn`) goes on with that turn, which began in an earlier
 * execution. Its activities name that turn, but no task of this execution begins it.
 */
function turnBegunBefore(events: readonly HistoryEvent[]): number | undefined {
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const payload = started?.continuedExecutionRunId ? started.input?.payloads?.[0] : undefined;
  if (!payload) return undefined;
  let input: unknown;
  try {
    input = defaultPayloadConverter.fromPayload<unknown>(payload as temporal.api.common.v1.IPayload);
  } catch {
    // An input this reader cannot decode (a codec it was not given) marks nothing.
    return undefined;
  }
  const continued = (input as { continued?: { turn?: unknown; openTurn?: unknown } } | undefined)?.continued;
  return continued?.openTurn !== undefined && typeof continued.turn === 'number' ? continued.turn : undefined;
}

/**
 * Turn boundaries of one execution, from its history. A boundary is the workflow task that
 * began the turn, marked by a memo change (`turnBoundary`) in that task, or, in runs since
 * 0.6.0, by the turn's first activity (`turn-<N>/…`) when that task scheduled one
 * (workflows/run/turn-boundaries.ts writes the memo change whenever it did not). Since 1.0.0 a
 * run's first task begins turn 0 unmarked.
 *
 * A reset goes back to the start of a task, so a task is one boundary: that of the first turn
 * that began in it. A later turn of the same task (local tools run many turns in one task) has
 * no boundary of its own: a rewind to it would re-run the earlier turns of the task too.
 */
export function checkpointsOf(events: readonly HistoryEvent[]): Checkpoint[] {
  const checkpoints: { turn: number; eventId: number; time: string; summary: { toolCalls: string[]; modelCalls: number; signals: string[]; updates: string[] } }[] = [];
  let lastTaskCompleted: HistoryEvent | undefined;
  /** Activities mark boundaries only after the patch: before it, memo changes mark all of them. */
  let byCommands = false;
  /** The newest turn named so far, whether or not it got a boundary of its own. */
  let newestTurn = turnBegunBefore(events) ?? -1;
  const begin = (turn: number, task: HistoryEvent): void => {
    newestTurn = Math.max(newestTurn, turn);
    if (checkpoints.at(-1)?.eventId === Number(task.eventId)) return;
    checkpoints.push({ turn, eventId: Number(task.eventId), time: eventTime(task), summary: { toolCalls: [], modelCalls: 0, signals: [], updates: [] } });
  };
  const firstTask = unmarkedFirstTask(events);
  for (const event of events) {
    if (event.workflowTaskCompletedEventAttributes) lastTaskCompleted = event;
    if (event === firstTask) begin(0, event);
    if (!byCommands && isPatchMarker(event, boundariesByCommandsPatchIds)) byCommands = true;
    const memoTurn = decodeMemo(event);
    if (memoTurn !== undefined && lastTaskCompleted) {
      begin(memoTurn, lastTaskCompleted);
      continue;
    }
    // A turn's first activity begins it, unless a memo change did (runs before 0.6.0 have both).
    const activityTurnNumber = activityTurn(event);
    if (byCommands && activityTurnNumber !== undefined && lastTaskCompleted && activityTurnNumber > newestTurn) begin(activityTurnNumber, lastTaskCompleted);
    const current = checkpoints[checkpoints.length - 1];
    if (!current) continue;
    const activity = event.activityTaskScheduledEventAttributes;
    if (activity) {
      if (activity.activityType?.name === 'callModel') current.summary.modelCalls += 1;
      // Tool activities are typed `<agent>/<tool>` (bare `<tool>` in runs recorded by 0.1.0).
      else current.summary.toolCalls.push(activity.activityType?.name?.split('/').at(-1) ?? '?');
    }
    const signal = event.workflowExecutionSignaledEventAttributes?.signalName;
    if (signal) current.summary.signals.push(signal);
    const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name;
    if (update) current.summary.updates.push(update);
  }
  return checkpoints;
}

/** The turn a local tool's marker names, by its summary (`turn <N>: <tool>`). */
function localToolTurn(event: HistoryEvent): number | undefined {
  if (event.markerRecordedEventAttributes?.markerName !== 'core_local_activity' || !event.userMetadata?.summary) return undefined;
  try {
    const summary = defaultPayloadConverter.fromPayload<unknown>(event.userMetadata.summary as temporal.api.common.v1.IPayload);
    return typeof summary === 'string' ? turnOfToolCallSummary(summary) : undefined;
  } catch {
    return undefined;
  }
}

/** The turn an event names: a boundary's memo change, a turn activity, a local tool call. */
function namedTurn(event: HistoryEvent): number | undefined {
  return decodeMemo(event) ?? activityTurn(event) ?? localToolTurn(event);
}

/** The task (its WorkflowTaskCompleted event id) of the first event that names `turn`. */
function taskNaming(events: readonly HistoryEvent[], turn: number): number | undefined {
  let task: number | undefined;
  for (const event of events) {
    if (event.workflowTaskCompletedEventAttributes) task = Number(event.eventId);
    else if (namedTurn(event) === turn) return task;
  }
  return undefined;
}

/**
 * How many turns began in one execution: the turns its memo changes, turn activities and local
 * tool calls name, boundaries of their own or not.
 */
export function turnsBegun(events: readonly HistoryEvent[]): number {
  const turns = new Set<number>(unmarkedFirstTask(events) ? [0] : []);
  for (const event of events) {
    const turn = namedTurn(event);
    if (turn !== undefined) turns.add(turn);
  }
  return turns.size;
}

/** Turns as a short list: consecutive ones as ranges (`0, 3..7, 9`). */
function describeTurns(turns: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < turns.length; ) {
    let j = i;
    while (j + 1 < turns.length && turns[j + 1] === turns[j]! + 1) j += 1;
    parts.push(j > i ? `${turns[i]}..${turns[j]}` : `${turns[i]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/**
 * The boundary after `turn` completed turns in one execution's history.
 *
 * @throws CheckpointError `no_such_turn`, naming the turns there are.
 */
export function checkpointAt(events: readonly HistoryEvent[], workflowId: string, turn: number): Checkpoint {
  const checkpoints = checkpointsOf(events);
  const checkpoint = checkpoints.find((c) => c.turn === turn);
  if (checkpoint) return checkpoint;
  const turns = checkpoints.map((c) => c.turn);
  const task = taskNaming(events, turn);
  const owner = checkpoints.find((c) => c.eventId === task);
  const shared = owner
    ? `; turn ${turn} began in the workflow task that began turn ${owner.turn} (as turns of local tools do), and a rewind goes back to the start of a task: rewind to ${owner.turn} instead`
    : '';
  throw new CheckpointError('no_such_turn', `run ${workflowId} has no boundary after ${turn} turns in this execution${shared}; available: ${turns.length ? describeTurns(turns) : 'none'}`);
}

/**
 * The events of a boundary's task that follow its completion event: the commands it made and
 * the updates it took (up to the next workflow task). A task that began a turn may have taken a
 * `resume` then; a replay that stops at the completion event would not see it.
 */
export function boundaryTaskEvents(events: readonly HistoryEvent[], checkpoint: Pick<Checkpoint, 'eventId'>): HistoryEvent[] {
  const after = events.filter((e) => Number(e.eventId) > checkpoint.eventId);
  const next = after.findIndex((e) => e.workflowTaskScheduledEventAttributes);
  return next < 0 ? after : after.slice(0, next);
}

/** Control updates a reset drops although they shaped the boundary (see {@link boundaryTaskEvents}). */
const boundaryControlUpdates: ReadonlySet<string> = new Set([pauseUpdate.name, resumeUpdate.name]);

/**
 * The pause and resume updates the boundary's task took, in order, with their decoded argument:
 * a clean rewind resets to the start of that task and drops them, so the rewound run would hold
 * where the original went on (or go on where it held). They are sent to the new run again.
 */
function boundaryControl(events: readonly HistoryEvent[], checkpoint: Checkpoint): { name: string; arg: unknown }[] {
  return boundaryTaskEvents(events, checkpoint).flatMap((e) => {
    const request = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    if (!request?.name || !boundaryControlUpdates.has(request.name)) return [];
    const payload = request.args?.payloads?.[0];
    return [{ name: request.name, arg: payload ? defaultPayloadConverter.fromPayload<unknown>(payload as temporal.api.common.v1.IPayload) : {} }];
  });
}

/**
 * Corrections for the run that goes on from a boundary (rewound or forked), validated. Edits and
 * drops aim at calls that run plans after the boundary, so they are marked `upcoming`.
 *
 * @throws CheckpointError `invalid_input` naming the correction and the field.
 */
export function correctionsAfterBoundary(corrections: readonly Intervention[] = []): Intervention[] {
  return corrections.map((intervention, i) => {
    const check = interventionSchema.safeParse(intervention);
    if (!check.success) throw new CheckpointError('invalid_input', `correction ${i + 1} is invalid: ${describeIssues(check.error)}`);
    const c = check.data as Intervention;
    return c.kind === 'edit_call' || c.kind === 'drop_call' ? { ...c, upcoming: true } : c;
  });
}

/** Options of {@link rewindRun}. */
export interface RewindOptions {
  /** Turns to keep: the run goes back to the boundary after this many completed turns. */
  readonly toTurn: number;
  /** Re-apply signals and updates that arrived after the boundary (default false: a clean rewind). */
  readonly reapply?: boolean;
  /** Corrections applied at the rewind point, before the next planner turn (a fork with a fix). */
  readonly with?: readonly Intervention[];
  readonly reason?: string;
  /** Execution to rewind (default: the latest). */
  readonly runId?: string;
}

/** How the corrections of a rewind were delivered. */
export type CorrectionDelivery =
  /** Recorded in the run's history before the reset and re-applied at the reset point: exact. */
  | 'atomic'
  | 'none';

/**
 * Rewinds a run to a turn boundary with a Temporal reset: the workflow id stays, a new run id
 * continues from the boundary. Works on running, completed, failed and terminated runs.
 *
 * Corrections (`with`) make the rewind a fork with a fix. On an open run they are recorded as
 * `intervene` signals first and the reset re-applies signals, so they reach the new run at the
 * reset point, before its next planner turn (the old run, about to be replaced, may log them
 * as rejected). A closed run cannot take signals, and this server version refuses post-reset
 * operations ("unsupported post reset operation"), so there they are sent right after the
 * reset as validated updates: edits and drops of calls are refused up front (the rewound run
 * plans those calls before they could arrive), and any other refusal is reported.
 *
 * @returns the new run id and how corrections were delivered.
 * @throws CheckpointError `no_such_turn` (listing the turns there are), `invalid_input`, or
 *   `correction_refused` (a closed run's call correction, or a correction the rewound run refused).
 */
export async function rewindRun(
  client: Client,
  workflowId: string,
  options: RewindOptions,
): Promise<{ runId: string; checkpoint: Checkpoint; corrections: CorrectionDelivery }> {
  const corrections = correctionsAfterBoundary(options.with);
  const description = await client.workflow.getHandle(workflowId, options.runId).describe();
  const runId = description.runId;
  const history = await fetchDecodedHistory(client, workflowId, runId);
  const checkpoint = checkpointAt(history.events ?? [], workflowId, options.toTurn);
  const open = description.status.name === 'RUNNING';
  if (!open && corrections.length > 0) {
    // A closed run takes no signal, and this server version refuses post-reset operations: a
    // correction would reach the rewound run only after its first task had planned the turn it
    // aims at (a correction of the last turn never applied). Refuse before anything happens.
    throw new CheckpointError(
      'correction_refused',
      `run ${workflowId} has closed: ${corrections.map((c) => `${c.kind} ${'toolCallId' in c ? c.toolCallId : ''}`.trim()).join(', ')} cannot reach the rewound run before it plans its next turn; ` +
        'corrections apply atomically only when the run is rewound while open. Fork the run instead (agentctl fork, forkRun: a new workflow id, where they apply exactly), or rewind without them and correct the run as it goes',
    );
  }
  if (open) for (const correction of corrections) await client.workflow.getHandle(workflowId, runId).signal(interveneSignal, correction);
  const { ResetReapplyExcludeType } = temporal.api.enums.v1;
  const reapplySignals = options.reapply === true || (open && corrections.length > 0);
  const response: temporal.api.workflowservice.v1.IResetWorkflowExecutionResponse = await client.workflowService.resetWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId, runId },
    reason: options.reason ?? `rewind to turn ${options.toTurn}`,
    workflowTaskFinishEventId: Long.fromNumber(checkpoint.eventId),
    requestId: randomUUID(),
    resetReapplyExcludeTypes: [
      ...(reapplySignals ? [] : [ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_SIGNAL]),
      ...(options.reapply ? [] : [ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_UPDATE]),
    ],
  });
  const newRunId = response.runId ?? '';
  if (!options.reapply) {
    for (const { name, arg } of boundaryControl(history.events ?? [], checkpoint)) {
      await client.workflow.getHandle(workflowId, newRunId).executeUpdate(name, { args: [arg] });
    }
  }
  return { runId: newRunId, checkpoint, corrections: corrections.length === 0 ? 'none' : 'atomic' };
}
