import type { JsonValue, RunResult } from '../../contracts';
import { groupChains } from './chains';
import { readExecution, type RecordedExecution } from './execution';
import { RecordingError } from './recording-error';
import type { RecordedToolCall, Recording, TurnStep } from './recording-types';

export { RecordingError };
export type { RecordedChild, RecordedDecision, RecordedOutcome, RecordedToolCall, Recording, TurnStep } from './recording-types';

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
