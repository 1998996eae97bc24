import type { JsonValue, RunInput, RunResult } from '../../contracts';
import { groupChains } from './chains';
import { readExecution, type RecordedExecution } from './execution';
import type { RecordedIntervention } from './human-inputs';
import { RecordingError } from './recording-error';

export { RecordingError };

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

/** A sub-agent run the recorded run started (a call of an agent tool: a child `agentRun`). */
export interface RecordedChild {
  readonly workflowId: string;
  readonly agent: string;
  /** Call path from the root run to the child (the parent's call id last). */
  readonly path: readonly string[];
  readonly input: RunInput;
  /** The child's own recording, when its history was given with its parent's. */
  readonly recording?: Recording;
}

/** A run as its history records it: what went in, what the tools and humans answered, what came out. */
export interface Recording {
  /** Where it came from (a file name, or what the caller named it); its first execution's when it continued as new. */
  readonly source: string;
  readonly workflowId: string;
  /** The input of its first execution. */
  readonly input: RunInput;
  /** How many executions (histories) it was read from: more than one when it continued as new. */
  readonly executions: number;
  readonly toolCalls: readonly RecordedToolCall[];
  readonly decisions: readonly RecordedDecision[];
  /** Answers to await items (`answerAwait`), in the order they were given. */
  readonly answers: readonly Readonly<Record<string, JsonValue>>[];
  /** Operator corrections it got (interventions, budget changes, a kill), in order. */
  readonly interventions: readonly RecordedIntervention[];
  /** The sub-agent runs it started, in order. */
  readonly children: readonly RecordedChild[];
  /** The run's turns, from its model answers (LLM agents) or else its tool activities. */
  readonly steps: readonly TurnStep[];
  /** The run's result; absent when the recorded run had not completed. */
  readonly result?: RunResult;
  /** How its last execution ended: completed, failed, terminated, … or `open`. */
  readonly ending: string;
  /** Why it failed, when it did. */
  readonly failure?: string;
}

/**
 * One run from the executions of its chain, first to last: the first one's input, the tool
 * calls, decisions, answers, interventions and children of all, the last one's result.
 */
export function recordingOfChain(chain: readonly RecordedExecution[]): Recording {
  const first = chain[0]!;
  const last = chain[chain.length - 1]!;
  const callsById = new Map(chain.flatMap((e) => [...e.callsById]));
  const modelAnswers = new Map(chain.flatMap((e) => [...e.modelAnswers]));
  const toolCalls = chain.flatMap((e) => e.toolCalls);
  const path = first.input.parent?.path ?? [];
  return {
    source: first.source,
    workflowId: first.workflowId,
    input: first.input,
    executions: chain.length,
    toolCalls,
    decisions: chain.flatMap((e) => e.humans.decisions.map((decision) => ({ ...callsById.get(String(decision.toolCallId)), decision }))),
    answers: chain.flatMap((e) => e.humans.answers),
    interventions: chain.flatMap((e) => e.humans.interventions.map((i) => ({ workflowId: first.workflowId, path: [], ...i }))),
    children: chain.flatMap((e) =>
      e.children.map((c) => ({ workflowId: c.workflowId, agent: c.input.agent, path: c.input.parent?.path ?? [...path, c.input.parent?.toolCallId ?? ''], input: c.input })),
    ),
    steps: stepsOf(modelAnswers, toolCalls, last.result),
    ...(last.result ? { result: last.result } : {}),
    ending: last.ending,
    ...(last.failure ? { failure: last.failure } : {}),
  };
}

/**
 * Reads what an `agentRun` history recorded: its input, its tool calls with their results or
 * errors, the human decisions, answers and interventions it got, the sub-agent runs it started,
 * its turns and its result. The history is JSON as `agentctl history export` and
 * `AgentClient.exportHistory` write it (the corpus's format): one execution, so a run that
 * continued as new is read with `loadRecordings` from all its executions' files.
 *
 * @param source names the recording in reports and errors (e.g. its file).
 * @throws RecordingError when the JSON is not a workflow history, not one of an `agentRun`, or one execution of a run that continued as new.
 * @throws OutsideSupportWindowError when it was recorded before this version's support window.
 * @example
 * import { readFileSync } from 'node:fs';
 * const recording = readRecording(JSON.parse(readFileSync('runs/add-aapl.json', 'utf8')), 'runs/add-aapl.json');
 */
export function readRecording(json: unknown, source: string): Recording {
  return recordingOfChain(groupChains([readExecution(json, source)])[0]!);
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
