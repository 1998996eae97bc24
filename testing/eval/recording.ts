import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { agentRunWorkflowType, answerAwaitUpdate, answerSignal, decideCallUpdate, decideSignal } from '../../contracts/definitions';
import { toolCallFromActivity, type JsonValue, type RunInput, type RunResult } from '../../contracts';
import { supportWindowProblem } from '../../worker/replay';
import { OutsideSupportWindowError } from '../../workflows/versioning/support-window';

type History = temporal.api.history.v1.IHistory;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payloads = temporal.api.common.v1.IPayloads | null | undefined;

/** What a recorded tool activity ended with. */
export type RecordedOutcome =
  | { readonly kind: 'ok'; readonly result: JsonValue; readonly sessionStateChanges?: Readonly<Record<string, JsonValue | null>> }
  | { readonly kind: 'error'; readonly message: string; readonly type?: string }
  /** The recording has no answer to give: the result was omitted, or the call never ended. */
  | { readonly kind: 'missing'; readonly reason: string };

/** One tool call the recorded run made (a tool activity), in the order it was scheduled. */
export interface RecordedToolCall {
  readonly turn: number;
  readonly toolCallId: string;
  readonly name: string;
  readonly args: JsonValue;
  readonly outcome: RecordedOutcome;
}

/**
 * A human decision on a call, with the call it decided (name and arguments as proposed). Without
 * them when the history does not say what the call was: a call of a planner without model calls
 * that never ran (rejected). Such a decision is matched by the call's id, which such planners give
 * by position (`call_<turn>_<index>`).
 */
export interface RecordedDecision {
  readonly name?: string;
  readonly args?: JsonValue;
  /** The decision as sent (`decideCall`), its `toolCallId` the recorded run's. */
  readonly decision: Readonly<Record<string, JsonValue>>;
}

/** What one planner turn decided: the calls it made (in order), or its final answer. */
export interface TurnStep {
  readonly turn: number;
  readonly calls: readonly { readonly name: string; readonly args: JsonValue }[];
  /** The model's text when the turn called no tool (its answer). */
  readonly text?: string;
}

/** A run as its history records it: what went in, what the tools and humans answered, what came out. */
export interface Recording {
  /** Where it came from (a file name, or what the caller named it). */
  readonly source: string;
  readonly workflowId: string;
  readonly input: RunInput;
  readonly toolCalls: readonly RecordedToolCall[];
  readonly decisions: readonly RecordedDecision[];
  /** Answers to await items (`answerAwait`), in the order they were given. */
  readonly answers: readonly Readonly<Record<string, JsonValue>>[];
  /** The run's turns, from its model answers (LLM agents) or else its tool activities. */
  readonly steps: readonly TurnStep[];
  /** The run's result; absent when the recorded execution had not completed. */
  readonly result?: RunResult;
  /** How the recorded execution ended: completed, failed, terminated, continued_as_new, … or `open`. */
  readonly ending: string;
  /** Why it failed, when it did. */
  readonly failure?: string;
}

/** A recording that cannot be evaluated; the message says what is wrong with it. */
export class RecordingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingError';
  }
}

function decode(payloads: Payloads): unknown[] {
  return (payloads?.payloads ?? []).map((p) => {
    try {
      return defaultPayloadConverter.fromPayload<unknown>(p);
    } catch (err) {
      const encoding = p.metadata?.encoding ? Buffer.from(p.metadata.encoding).toString() : 'unknown';
      throw new RecordingError(`a payload of encoding ${encoding} cannot be read (${err instanceof Error ? err.message : String(err)}); an encrypted history must be decoded first (DURABLE_AGENTS_ENCRYPTION_KEYS)`);
    }
  });
}

/** Parses a model call's tool arguments as the planner does: JSON text, empty meaning `{}`; kept as text when it is not JSON. */
function parseArguments(text: string): JsonValue {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function outcomeOf(close: HistoryEvent | undefined): RecordedOutcome {
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
function closingEvents(events: readonly HistoryEvent[]): Map<number, HistoryEvent> {
  const closed = new Map<number, HistoryEvent>();
  for (const e of events) {
    const attrs =
      e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes ?? e.activityTaskCanceledEventAttributes;
    if (attrs?.scheduledEventId != null) closed.set(Number(attrs.scheduledEventId), e);
  }
  return closed;
}

/** Human inputs as sent: accepted updates and signals of the decide and answer kinds, in order. */
function humanInputs(events: readonly HistoryEvent[]): { decisions: Record<string, JsonValue>[]; answers: Record<string, JsonValue>[] } {
  const decisions: Record<string, JsonValue>[] = [];
  const answers: Record<string, JsonValue>[] = [];
  for (const e of events) {
    const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    const signal = e.workflowExecutionSignaledEventAttributes;
    const name = update?.name ?? signal?.signalName;
    const arg = asRecord(decode(update?.args ?? signal?.input)[0]) as Record<string, JsonValue>;
    if (name === decideCallUpdate.name || name === decideSignal.name) decisions.push(arg);
    else if (name === answerAwaitUpdate.name || name === answerSignal.name) answers.push(arg);
  }
  return { decisions, answers };
}

/**
 * Reads what an `agentRun` history recorded: its input, its tool calls with their results or
 * errors, the human decisions and answers it got, its turns and its result. The history is JSON
 * as `agentctl history export` and `AgentClient.exportHistory` write it (the corpus's format).
 *
 * @param source names the recording in reports and errors (e.g. its file).
 * @throws RecordingError when the JSON is not a workflow history, or not one of an `agentRun`.
 * @throws OutsideSupportWindowError when it was recorded before this version's support window.
 * @example
 * import { readFileSync } from 'node:fs';
 * const recording = readRecording(JSON.parse(readFileSync('runs/add-aapl.json', 'utf8')), 'runs/add-aapl.json');
 */
export function readRecording(json: unknown, source: string): Recording {
  let history: History;
  try {
    history = historyFromJSON(json);
  } catch (err) {
    throw new RecordingError(`${source} is not a workflow history: ${err instanceof Error ? err.message : String(err)}`);
  }
  const events = history.events ?? [];
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  if (!started) throw new RecordingError(`${source} is not a workflow history: its first event is not a workflow start`);
  const type = started.workflowType?.name ?? '(none)';
  if (type !== agentRunWorkflowType) throw new RecordingError(`${source} is a history of workflow type ${type}; only agent runs (${agentRunWorkflowType}) can be evaluated`);
  const outside = supportWindowProblem(history);
  if (outside) throw new OutsideSupportWindowError(outside);
  const input = decode(started.input)[0] as RunInput | undefined;
  if (!input || typeof input.agent !== 'string') throw new RecordingError(`${source}: its start has no run input`);

  const closed = closingEvents(events);
  const toolCalls: RecordedToolCall[] = [];
  const modelAnswers = new Map<number, TurnStep>();
  const callsById = new Map<string, { name: string; args: JsonValue }>();
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (!scheduled) continue;
    const activityType = scheduled.activityType?.name ?? '';
    const payload = asRecord(decode(scheduled.input)[0]);
    if (activityType === 'callModel') {
      const close = closed.get(Number(e.eventId));
      const answer = close?.activityTaskCompletedEventAttributes ? asRecord(decode(close.activityTaskCompletedEventAttributes.result)[0]) : undefined;
      const turn = Number(payload.turn ?? 0);
      if (!answer) continue;
      const calls = (Array.isArray(answer.toolCalls) ? answer.toolCalls : []).map((raw) => {
        const call = asRecord(raw);
        const named = { name: String(call.name), args: parseArguments(String(call.arguments ?? '')) };
        if (typeof call.id === 'string') callsById.set(call.id, named);
        return named;
      });
      // The last call of a turn decides it (earlier ones were repaired).
      modelAnswers.set(turn, { turn, calls, ...(calls.length === 0 ? { text: String(answer.content ?? '') } : {}) });
      continue;
    }
    const call = toolCallFromActivity({ activityType, activityId: scheduled.activityId ?? '' });
    if (!call.tool || call.turn === undefined) continue;
    const request = asRecord(payload.request);
    const toolCallId = typeof request.toolCallId === 'string' ? request.toolCallId : (call.toolCallId ?? '');
    const recorded: RecordedToolCall = {
      turn: typeof request.turn === 'number' ? request.turn : call.turn,
      toolCallId,
      name: typeof request.name === 'string' ? request.name : call.tool,
      args: (request.args ?? {}) as JsonValue,
      outcome: outcomeOf(closed.get(Number(e.eventId))),
    };
    toolCalls.push(recorded);
    if (!callsById.has(toolCallId)) callsById.set(toolCallId, { name: recorded.name, args: recorded.args });
  }

  const inputs = humanInputs(events);
  const decisions: RecordedDecision[] = inputs.decisions.map((decision) => ({ ...callsById.get(String(decision.toolCallId)), decision }));

  const last = events[events.length - 1];
  const completed = last?.workflowExecutionCompletedEventAttributes;
  const result = completed ? (decode(completed.result)[0] as RunResult | undefined) : undefined;
  const failure = last?.workflowExecutionFailedEventAttributes?.failure?.message ?? undefined;
  return {
    source,
    workflowId: started.workflowId ?? '',
    input,
    toolCalls,
    decisions,
    answers: inputs.answers,
    steps: stepsOf(modelAnswers, toolCalls, result),
    ...(result ? { result } : {}),
    ending: endingOf(last),
    ...(failure ? { failure } : {}),
  };
}

/** The turns of a run: its model answers when it has any, else its tool calls grouped by turn and its final answer. */
function stepsOf(modelAnswers: ReadonlyMap<number, TurnStep>, toolCalls: readonly RecordedToolCall[], result: RunResult | undefined): TurnStep[] {
  if (modelAnswers.size > 0) return [...modelAnswers.values()].sort((a, b) => a.turn - b.turn);
  const byTurn = new Map<number, { name: string; args: JsonValue }[]>();
  for (const c of toolCalls) byTurn.set(c.turn, [...(byTurn.get(c.turn) ?? []), { name: c.name, args: c.args }]);
  const steps: TurnStep[] = [...byTurn.entries()].sort(([a], [b]) => a - b).map(([turn, calls]) => ({ turn, calls }));
  if (result?.final) steps.push({ turn: (steps[steps.length - 1]?.turn ?? -1) + 1, calls: [], text: result.final.text });
  return steps;
}

function endingOf(last: HistoryEvent | undefined): string {
  if (!last) return 'open';
  if (last.workflowExecutionCompletedEventAttributes) return 'completed';
  if (last.workflowExecutionFailedEventAttributes) return 'failed';
  if (last.workflowExecutionTerminatedEventAttributes) return 'terminated';
  if (last.workflowExecutionCanceledEventAttributes) return 'cancelled';
  if (last.workflowExecutionTimedOutEventAttributes) return 'timed_out';
  if (last.workflowExecutionContinuedAsNewEventAttributes) return 'continued_as_new';
  return 'open';
}
