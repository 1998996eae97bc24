/**
 * The types of a recording (what a run's history says went in and came out), apart from the
 * readers that build them (recording.ts, execution.ts, history-decode.ts, human-inputs.ts), so
 * each reader depends on them and none on another's types.
 */
import type { JsonValue, RunInput, RunResult } from '../../contracts';

/**
 * An operator's correction the recorded run got, which a candidate does not: an intervention
 * (edited or dropped call, injected message, overridden instructions, blocked tool,
 * breakpoint, …), a budget change or a kill; or its session's decision about a message that came
 * while it ran (a steer, an interrupt, a rollback).
 */
export interface RecordedIntervention {
  /** The recorded run (of the tree) that got it. */
  readonly workflowId: string;
  /** Call path from the evaluated run to that run (empty: the evaluated run itself). */
  readonly path: readonly string[];
  /**
   * The intervention's kind (`edit_call`, `drop_call`, `inject_message`, …), or `set_budget`, `kill`;
   * for its session's decisions `steer` (an `inject_message` naming the session message), and
   * `interrupt` or `rollback` (the kill the session sent, its `endedBy` naming the message).
   */
  readonly kind: string;
  /** The request as sent. */
  readonly intervention: Readonly<Record<string, JsonValue>>;
}

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
