import type { JsonValue } from '../../contracts/json';
import type { Message } from '../../contracts/messages';
import type { PlannerNote, PlanResult, Termination } from '../../contracts/plan';
import type { ToolOutput, WrittenOutput } from '../../contracts/tools';
import type { ToolsetView } from './toolsets';
import type { ProviderWaits } from '../kernel/provider-waits';
import type { ModelCallCost } from '../../contracts/pricing';

/** What a planner reports of its model calls (see {@link PlannerContext.recordModelUsage}). */
export interface ModelUsageReport {
  readonly tokens: number;
  readonly modelCalls: number;
  readonly tokensUnknown?: boolean;
  readonly cost?: ModelCallCost;
  /** The model the calls went to, for the run's `model_usage` event. */
  readonly model?: string;
}

/** Per-run key/value storage for planner-local state; durable because it lives in workflow state. */
export interface AgentState {
  get(key: string): JsonValue | undefined;
  set(key: string, value: JsonValue): void;
  keys(): string[];
}

/** What a planner may know and do besides deciding. Everything here is deterministic. */
export interface PlannerContext {
  readonly runId: string;
  readonly workflowId: string;
  readonly agent: string;
  /** 0 for planStart; the number of completed tool turns afterwards. */
  readonly turn: number;
  readonly state: AgentState;
  /** The run's session state (read-only view). */
  readonly sessionState: Readonly<Record<string, JsonValue>>;
  /**
   * The agent's system instructions (or an operator's override of them), already rendered:
   * `{key}` placeholders are filled from session state by the runtime each turn.
   */
  readonly instructions?: string;
  /**
   * Changes when the runtime compacts the transcript (drops its oldest messages so a long run
   * can continue as new); message indexes from an earlier epoch are then meaningless.
   */
  readonly transcriptEpoch: number;
  /**
   * Tools whose calls may start while the model still answers (early dispatch): model planners
   * ask their model activity to report them. Absent when the run does not allow it this turn.
   */
  readonly earlyTools?: readonly string[];
  /**
   * The tools the run has from the agent's MCP toolsets this turn, with each list's version
   * (absent for agents without toolsets). Planners that offer tools to a model add these names.
   */
  readonly toolsets?: readonly ToolsetView[];
  /**
   * For model calls that wait out a provider outage: the time budget left, and the wait's report
   * (the `model_waiting` event and the status's `waitingFor`). Absent: such calls fail instead.
   */
  readonly providerWaits?: ProviderWaits;
  /** Emit a planner note to the run's event log. */
  emitNote(note: PlannerNote): void;
  /**
   * Count model usage toward the run's token, model-call and cost budgets. `tokensUnknown`: the
   * provider reported no usage for this call; it is counted as unknown, not as 0 tokens. `cost`:
   * what the calls cost (the model activity's answer has it when the worker's price table
   * prices the model); without it the calls count as of unknown cost, never as free.
   */
  recordModelUsage(usage: ModelUsageReport): void;
}

/** Input of the first planner turn. */
export interface PlanStartInput {
  readonly messages: readonly Message[];
}

/** Input of every later turn. */
export interface PlanResumeInput {
  /** Full conversation, including the latest assistant tool calls and tool results. */
  readonly messages: readonly Message[];
  /** Every tool output of the run so far, oldest first. */
  readonly toolOutputs: readonly ToolOutput[];
  /** Outputs of the turn that just finished. */
  readonly lastOutputs: readonly ToolOutput[];
  /** Set when a cap forces this to be the last turn: the planner must return a final response. */
  readonly finalize?: Termination;
  /**
   * The run's written output paths (`outputPath` of dependency-aware calls), by path. Absent in
   * runs that wrote none. Values of old turns are dropped when a long run continues as new.
   */
  readonly outputs?: Readonly<Record<string, WrittenOutput>>;
}

/**
 * The decision maker of an agent. Runs inside the workflow, so it must be deterministic: its
 * only I/O is through activities (e.g. model calls).
 */
export interface Planner {
  planStart(input: PlanStartInput, ctx: PlannerContext): Promise<PlanResult> | PlanResult;
  planResume(input: PlanResumeInput, ctx: PlannerContext): Promise<PlanResult> | PlanResult;
  /**
   * Declares that `planStart` and `planResume` return their PlanResult directly (never a promise)
   * and start no activity, timer or child workflow. The run then calls them without a
   * cancellation scope of their own and without awaiting, which makes a turn cheaper for the
   * worker; the commands the run emits are the same. A planner that says so and returns a
   * promise anyway still works, but what it starts is not cancelled by a kill or a correction
   * until it returns. The scripted planner sets it.
   */
  readonly synchronous?: boolean;
}
