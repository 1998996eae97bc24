import { ApplicationFailure, CancellationScope, isCancellation, workflowInfo } from '@temporalio/workflow';
import { describeIssues } from '../../contracts/json';
import type { ParsedPlanResult, PlanResult } from '../../contracts/plan';
import type { EarlyToolCall } from '../../contracts/tools';
import { parsePlanResult } from '../../contracts/fast-schemas';
import type { Planner, PlannerContext } from '../agents/planner';
import type { CallRunner } from '../calls/call-runner';
import { providerWaitsOf } from '../state/provider-waits-of';
import { runContext } from '../kernel/run-context';
import { RunTerminated } from '../kernel/run-terminated';
import { addModelUsage, modelUsageEvent } from '../state/budget';
import type { RunState } from '../state/run-state';
import { isPending } from '../state/safe-point';
import { recordAgentState } from './agent-state';
import { renderTemplate } from './render';
import { syncToolsets } from './toolset-sync';

/** What planner turns need of the loop. */
export interface PlannerTurnHost {
  /** Whether a kill (or Temporal's cancel) ends the run. */
  terminationRequested(): boolean;
  /** Fails the run with a business failure. */
  fail(errorType: string, message: string): never;
}

/**
 * The planner's turns of one run: the planner called in a scope a kill can cancel, its result
 * validated, its context (instructions, state, toolsets, early tools, provider waits, usage), and
 * the early-dispatch window of the turn.
 */
export class PlannerTurns {
  /** Scope of the planner turn in progress (a kill cancels it). */
  private plannerScope: CancellationScope | undefined;
  /** Set while a planner turn takes early calls (early dispatch): its turn and tools. */
  private earlyWindow: { turn: number; tools: string[] } | undefined;

  constructor(
    private readonly state: RunState,
    private readonly planner: Planner,
    private readonly calls: CallRunner,
    private readonly host: PlannerTurnHost,
  ) {}

  /** The planner's first turn. */
  start(): Promise<ParsedPlanResult> | ParsedPlanResult {
    const { state } = this;
    return this.plan(() => this.withToolsets(() => this.planner.planStart({ messages: state.messages }, this.plannerContext())));
  }

  /** A later turn, with the planner's input for it (made when the planner is called, after any toolset listing). */
  resume(input: () => Parameters<Planner['planResume']>[0]): Promise<ParsedPlanResult> | ParsedPlanResult {
    return this.plan(() => this.withToolsets(() => this.planner.planResume(input(), this.plannerContext())));
  }

  /** Cancels the planner turn in progress (a kill). */
  cancel(): void {
    this.plannerScope?.cancel();
  }

  /** A call the model activity reported early: started if this planner turn still takes it. */
  acceptEarlyCall(call: EarlyToolCall): void {
    const { state } = this;
    const window = this.earlyWindow;
    if (!window || window.turn !== call.turn || !window.tools.includes(call.name) || state.control.isPauseRequested || state.control.kill) return;
    if (state.usage.toolCalls + this.calls.early.count >= state.policy.maxToolCalls) return;
    this.calls.early.start({ toolCallId: call.toolCallId, name: call.name, args: call.args, turn: state.turn });
  }

  /**
   * Runs a planner turn after fetching the tool lists of MCP toolsets that need it (first use, a
   * list change a call reported, an operator's refresh). Agents without toolsets (and turns with
   * nothing to fetch) call the planner directly, so their commands are the same as ever.
   */
  private withToolsets(turn: () => Promise<PlanResult> | PlanResult): Promise<PlanResult> | PlanResult {
    if (this.state.toolsets.due().length === 0) return turn();
    return syncToolsets(this.state).then(turn);
  }

  /**
   * Calls the planner in a cancellable scope, validates its result and logs notes. A planner
   * that declares itself synchronous (and a turn with no toolset lists to fetch first) is called
   * directly: no scope, no promise, when it keeps its word. Either way the same commands follow.
   */
  private plan(call: () => Promise<PlanResult> | PlanResult): Promise<ParsedPlanResult> | ParsedPlanResult {
    if (!this.planner.synchronous || this.state.toolsets.due().length > 0) return this.planInScope(call);
    let raw: Promise<PlanResult> | PlanResult;
    try {
      raw = call();
    } catch (err) {
      return this.plannerFailed(err);
    } finally {
      this.earlyWindow = undefined;
    }
    return isPending(raw) ? raw.then((r) => this.checkPlan(r), (err: unknown) => this.plannerFailed(err)) : this.checkPlan(raw);
  }

  private async planInScope(call: () => Promise<PlanResult> | PlanResult): Promise<ParsedPlanResult> {
    let raw: PlanResult;
    try {
      raw = await CancellationScope.cancellable(async () => {
        this.plannerScope = CancellationScope.current();
        try {
          return await call();
        } finally {
          this.plannerScope = undefined;
          this.earlyWindow = undefined;
        }
      });
    } catch (err) {
      return this.plannerFailed(err);
    }
    return this.checkPlan(raw);
  }

  /** Ends the run for a planner that threw (a cancellation that is a kill ends it as killed). */
  private plannerFailed(err: unknown): never {
    if (isCancellation(err) && this.host.terminationRequested()) throw new RunTerminated();
    if (isCancellation(err)) throw err;
    // A planner's business failure (e.g. a model error) keeps its type, and is logged.
    if (err instanceof ApplicationFailure) return this.host.fail(err.type ?? 'planner_failed', err.message);
    const message = err instanceof Error ? err.message : String(err);
    return this.host.fail('planner_failed', `planner of ${this.state.agent.name} failed at turn ${this.state.turn}: ${message}`);
  }

  /** Validates a planner's result and logs its notes. */
  private checkPlan(raw: PlanResult): Promise<ParsedPlanResult> | ParsedPlanResult {
    const { state } = this;
    const parsed = parsePlanResult(raw);
    if (!parsed.success) return this.host.fail('invalid_plan', `planner returned an invalid PlanResult at turn ${state.turn}: ${describeIssues(parsed.error)}`);
    for (const note of parsed.data.notes ?? []) state.emit({ type: 'note', turn: state.turn, note });
    if (parsed.data.type !== 'tool_calls' && this.calls.early.count) {
      return this.calls.early.discard(`the final answer has no tool calls (${parsed.data.type})`).then(() => parsed.data);
    }
    return parsed.data;
  }

  /**
   * Tools whose calls may start while the model still answers this turn: the policy allows it,
   * nothing may need to see the plan first (no pause, no after_llm or before_tool breakpoint or
   * hook), and the tool is `startEarly`, needs no confirmation and is not blocked.
   */
  private earlyTools(): string[] {
    const { state } = this;
    const { control, agent } = state;
    if (!state.policy.earlyDispatch || control.isPauseRequested || control.kill) return [];
    if (agent.hooks?.after_llm || agent.hooks?.before_tool) return [];
    if (control.breakpointList.some((b) => b.point === 'after_llm' || b.point === 'before_tool')) return [];
    const confirmation = state.input.confirmation;
    return agent.tools
      .filter((t) => t.startEarly && t.requiresConfirmation === false && !confirmation?.all && !confirmation?.tools?.includes(t.name) && !control.blockReason(t.name))
      .map((t) => t.name);
  }

  /** Opens this planner turn to early calls when any tool may start early; the context names them. */
  private openEarlyWindow(): { earlyTools?: string[] } {
    const tools = this.earlyTools();
    if (!tools.length) return {};
    this.earlyWindow = { turn: this.state.turn, tools };
    return { earlyTools: tools };
  }

  private plannerContext(): PlannerContext {
    const { state } = this;
    const info = workflowInfo();
    const instructions = state.instructionsOverride ?? state.agent.instructions;
    return {
      runId: info.runId,
      workflowId: info.workflowId,
      agent: state.agent.name,
      turn: state.turn,
      transcriptEpoch: state.transcriptEpoch,
      ...(state.toolsets.isEmpty ? {} : { toolsets: state.toolsets.views() }),
      state: recordAgentState(state.plannerState),
      sessionState: state.sessionState,
      ...(instructions !== undefined ? { instructions: renderTemplate(instructions, state.sessionState) } : {}),
      ...this.openEarlyWindow(),
      providerWaits: providerWaitsOf(state),
      emitNote: (note) => state.emit({ type: 'note', turn: state.turn, note }),
      recordModelUsage: (report) => {
        state.usage = addModelUsage(state.usage, report);
        // Runs of releases before 1.0.0 log no such event: their later events keep their seqs on replay.
        if (runContext().work.logsModelUsage) state.emit(modelUsageEvent(state.turn, report));
        state.account?.recordUsage(report);
      },
    };
  }
}
