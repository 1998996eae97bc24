import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { agentRunWorkflowType } from '../../contracts/definitions';
import { mcpCallToolActivityName, toolCallFromActivity, type JsonValue, type RunInput, type RunResult } from '../../contracts';
import { supportWindowProblem } from '../../worker/replay';
import { OutsideSupportWindowError } from '../../workflows/versioning/support-window';
import { asRecord, closingEvents, decode, endingOf, outcomeOf, parseArguments } from './history-decode';
import { humanInputs, type HumanInputs } from './human-inputs';
import type { RecordedToolCall, TurnStep } from './recording-types';
import { RecordingError } from './recording-error';

/** A sub-agent run an execution started (an agent tool's child `agentRun`), as its start records it. */
export interface StartedChild {
  readonly workflowId: string;
  readonly input: RunInput;
}

/** What one exported history (one execution of a run) recorded. */
export interface RecordedExecution {
  readonly source: string;
  readonly workflowId: string;
  /** This execution's run id (as started), the first execution's, and the one it continued from. */
  readonly runId: string;
  readonly firstRunId: string;
  readonly continuedFrom?: string;
  /** The run id it continued as, when it ended `continued_as_new`. */
  readonly continuedAs?: string;
  readonly input: RunInput;
  readonly toolCalls: readonly RecordedToolCall[];
  /** Model answers by turn (the last answer of a turn decides it). */
  readonly modelAnswers: ReadonlyMap<number, TurnStep>;
  /** Name and arguments of each call the history describes, by call id. */
  readonly callsById: ReadonlyMap<string, { readonly name: string; readonly args: JsonValue }>;
  readonly humans: HumanInputs;
  readonly children: readonly StartedChild[];
  readonly result?: RunResult;
  readonly ending: string;
  readonly failure?: string;
}

type History = temporal.api.history.v1.IHistory;

/**
 * Reads one exported `agentRun` history (the JSON of `agentctl history export` and
 * `AgentClient.exportHistory`: one execution).
 *
 * @throws RecordingError when the JSON is not a workflow history, or not one of an `agentRun`.
 * @throws OutsideSupportWindowError when it was recorded before this version's support window.
 */
export function readExecution(json: unknown, source: string): RecordedExecution {
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
  const children: StartedChild[] = [];
  for (const e of events) {
    const child = e.startChildWorkflowExecutionInitiatedEventAttributes;
    if (child?.workflowType?.name === agentRunWorkflowType) {
      const childInput = decode(child.input)[0] as RunInput | undefined;
      if (childInput) children.push({ workflowId: child.workflowId ?? '', input: childInput });
      continue;
    }
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
    const request = asRecord(payload.request);
    // An MCP call's activity type is the server's (`mcp.callTool`): its input names the tool as the run knows it.
    const name = activityType === mcpCallToolActivityName ? request.name : call.tool;
    if (typeof name !== 'string' || !name || call.turn === undefined) continue;
    const toolCallId = typeof request.toolCallId === 'string' ? request.toolCallId : (call.toolCallId ?? '');
    const recorded: RecordedToolCall = {
      turn: typeof request.turn === 'number' ? request.turn : call.turn,
      toolCallId,
      name: typeof request.name === 'string' ? request.name : name,
      args: (request.args ?? {}) as JsonValue,
      outcome: outcomeOf(closed.get(Number(e.eventId))),
    };
    toolCalls.push(recorded);
    if (!callsById.has(toolCallId)) callsById.set(toolCallId, { name: recorded.name, args: recorded.args });
  }

  const last = events[events.length - 1];
  const completed = last?.workflowExecutionCompletedEventAttributes;
  const result = completed ? (decode(completed.result)[0] as RunResult | undefined) : undefined;
  const failure = last?.workflowExecutionFailedEventAttributes?.failure?.message ?? undefined;
  const runId = started.originalExecutionRunId ?? '';
  const continuedAs = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  return {
    source,
    workflowId: started.workflowId ?? '',
    runId,
    firstRunId: started.firstExecutionRunId || runId,
    ...(started.continuedExecutionRunId ? { continuedFrom: started.continuedExecutionRunId } : {}),
    ...(continuedAs ? { continuedAs } : {}),
    input,
    toolCalls,
    modelAnswers,
    callsById,
    humans: humanInputs(events),
    children,
    ...(result ? { result } : {}),
    ending: endingOf(last),
    ...(failure ? { failure } : {}),
  };
}
