import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { FinalResponse, ParsedPlanResult, Termination } from '../../contracts/plan';
import type { ToolCall, ToolOutput } from '../../contracts/tools';
import type { RunResult } from '../../contracts/run';
import { runAwait, type AwaitHost } from '../human/await-step';
import type { CarriedOpenTurn } from '../../contracts/carried-state';
import { addToolOutputs, describeCap } from '../state/budget';
import { CallRunner } from '../calls/call-runner';
import { ToolTurns } from '../calls/tool-turns';
import { closedOutput } from '../kernel/outputs';
import type { Planner } from '../agents/planner';
import type { RunState } from '../state/run-state';
import { runResult } from '../state/run-reports';
import { RunTerminated } from '../kernel/run-terminated';
import { isPending } from '../state/safe-point';
import { forkCapture } from './fork-capture';
import { carriedStateOf } from '../state/carried-state-of';
import { reportBoundary } from '../bundle/bundle-sinks';
import { rejection } from '../kernel/failures';
import { runContext } from '../kernel/run-context';
import { boundaryConcluderInstalled, TurnBoundaries } from './turn-boundaries';
import { watchTimeBudget } from './time-budget-watch';
import { Continuation, type PauseCarry } from './continuation';
import { PlannerTurns } from './planner-turns';
import { SafePoints } from './safe-points';

/** Bundle-wide settings of runs (from `createAgentWorkflows`). */
export interface RunLoopOptions {
  /** See AgentWorkflowsOptions.compactToolInputs. */
  readonly compactToolInputs?: boolean;
}

/**
 * The Think-Act-Observe loop of one run: planner turns, tool turns and awaits, with safe
 * points between them where control requests take effect, and the run's endings. Deterministic;
 * its only I/O is activities scheduled by planners and tools. Its parts: the planner's turns
 * (planner-turns.ts), the safe points (safe-points.ts), the continue-as-new (continuation.ts) and
 * the tool turns (calls/).
 */
export class RunLoop {
  /** The tool turn in progress (a kill or the time budget cancels its calls), shared with the calls and the budget watch. */
  private readonly toolTurns = new ToolTurns();
  private readonly calls: CallRunner;
  private readonly boundaries: TurnBoundaries;
  readonly continuation: Continuation;
  readonly safePoints: SafePoints;
  readonly plannerTurns: PlannerTurns;

  constructor(
    readonly state: RunState,
    planner: Planner,
    private readonly rootScope: CancellationScope,
    options: RunLoopOptions = {},
  ) {
    const byCommands = boundaryConcluderInstalled();
    this.boundaries = new TurnBoundaries(byCommands);
    this.calls = new CallRunner(state, this.toolTurns, {
      checkpoint: (point, event, tool) => this.safePoints.checkpoint(point, event, tool),
      waitFor: (done) => this.continuation.waitFor(done),
      holdWhilePaused: () => this.safePoints.holdWhilePaused('before_tool'),
      compactToolInputs: options.compactToolInputs ?? false,
    });
    this.continuation = new Continuation(state, this.calls, rootScope, () => this.safePoints.terminationRequested());
    this.safePoints = new SafePoints(state, rootScope, this.continuation, this.calls);
    this.plannerTurns = new PlannerTurns(state, planner, this.calls, {
      terminationRequested: () => this.safePoints.terminationRequested(),
      fail: (errorType, message) => this.fail(errorType, message),
    });
  }

  /**
   * Starts the run's loop: the run's result (a final response), or its failure for
   * {@link afterFailure}; or it continues as new. The workflow function awaits it.
   * `admission`: what the run waits for before its first turn (its tenant's quota).
   */
  start(admission?: () => Promise<void>): Promise<RunResult> {
    const { state } = this;
    if (state.generation === 0) state.emit({ type: 'run_started', agent: state.agent.name, messageCount: state.messages.length });
    watchTimeBudget({ state, toolTurns: this.toolTurns, scope: this.rootScope });
    return admission ? admission().then(() => this.loop()) : this.loop();
  }

  /** The result of a run whose loop failed: terminated when a kill or a cancellation ended it; otherwise the failure. */
  async afterFailure(err: unknown): Promise<RunResult> {
    if (!this.endsByTermination(err)) throw err;
    await this.calls.early.discard('the run was terminated');
    return this.terminate();
  }

  private endsByTermination(err: unknown): boolean {
    return err instanceof RunTerminated || (isCancellation(err) && this.safePoints.terminationRequested());
  }

  private async loop(): Promise<RunResult> {
    const { state } = this;
    // The turn the previous execution continued as new in, while it waited for people.
    const open = state.generation === 0 ? undefined : state.takeOpenTurn();
    let plan: ParsedPlanResult | { readonly type: 'carried'; readonly open: CarriedOpenTurn };
    if (open) {
      plan = { type: 'carried', open };
    } else if (state.generation === 0) {
      // Since 1.0.0 the run's first task is its turn 0 boundary for the reader, unmarked.
      if (runContext().work.marksFirstTask) this.markBoundary();
      else this.boundaries.beginWithTask(state.turn);
      const beforeLlm = this.safePoints.checkpoint('before_llm');
      if (isPending(beforeLlm)) await beforeLlm;
      const first = this.plannerTurns.start();
      plan = isPending(first) ? await first : first;
    } else {
      // A continued execution picks up at the turn boundary where the previous one stopped;
      // since 0.6.0 that boundary is marked here too, so a rewind can go back to it.
      if (this.boundaries.byCommands) this.markBoundary({ reportToFork: true });
      const resumed = this.resumeTurn(state.toolOutputs.filter((o) => o.turn === state.turn - 1));
      plan = isPending(resumed) ? await resumed : resumed;
    }
    for (;;) {
      if (plan.type === 'final') return this.complete(plan.response);
      if (state.finalizeReason && plan.type !== 'carried') {
        // The planner ignored the Finalize turn; end the run rather than loop past a cap.
        return this.complete({ text: `Run ended: ${describeCap(state.finalizeReason, state.usage, state.policy)}.` });
      }
      const lastOutputs =
        plan.type === 'carried'
          ? await this.resumeOpenTurn(plan.open)
          : plan.type === 'await'
            ? await runAwait(state, this.awaitHost(), plan.await)
            : await this.runToolCalls(plan.calls, plan.text);
      // An await is a planner turn like any other: it counts toward the iteration cap, so a
      // planner that keeps asking cannot loop forever.
      if (plan.type === 'await' || (plan.type === 'carried' && plan.open.kind === 'await')) state.usage = { ...state.usage, iterations: state.usage.iterations + 1 };
      state.turn += 1;
      this.markBoundary({ reportToFork: true });
      const boundary = this.safePoints.checkpointCarrying({}, 'task_boundary');
      if (isPending(boundary)) await boundary;
      if (this.continuation.continuesAtBoundary()) await this.continuation.continueAsNew();
      const next = this.resumeTurn(lastOutputs);
      plan = isPending(next) ? await next : next;
    }
  }

  /** The planner's next turn, with the Finalize request when a cap was reached. */
  private resumeTurn(lastOutputs: readonly ToolOutput[]): Promise<ParsedPlanResult> | ParsedPlanResult {
    const { state } = this;
    const termination = state.takeTermination();
    const atSafePoint = this.safePoints.checkpoint('before_llm');
    if (isPending(atSafePoint)) return atSafePoint.then(() => this.planResume(lastOutputs, termination));
    return this.planResume(lastOutputs, termination);
  }

  private planResume(lastOutputs: readonly ToolOutput[], termination: Termination | undefined): Promise<ParsedPlanResult> | ParsedPlanResult {
    const { state } = this;
    return this.plannerTurns.resume(() => ({
      messages: state.messages,
      toolOutputs: state.toolOutputs,
      lastOutputs,
      ...(termination ? { finalize: termination } : {}),
      ...(state.outputs.size ? { outputs: Object.fromEntries(state.outputs) } : {}),
    }));
  }

  private awaitHost(): AwaitHost {
    return { waitFor: (done, timeoutMs) => this.continuation.waitFor(done, timeoutMs), fail: (t, m) => this.fail(t, m) };
  }

  /** Goes on with the turn the previous execution continued as new in (see {@link continueWhileWaiting}). */
  private resumeOpenTurn(open: CarriedOpenTurn): Promise<ToolOutput[]> {
    if (open.kind === 'await') return runAwait(this.state, this.awaitHost(), open.spec, open);
    if (open.kind === 'turn_ended') return Promise.resolve(open.outputs);
    return this.calls.resumeTurn(open, (outputs) => this.counted(outputs));
  }

  /** The end of a tool turn: its outputs counted, then the after_tool safe point. */
  private counted(outputs: ToolOutput[]): ToolOutput[] | Promise<ToolOutput[]> {
    const { state } = this;
    state.usage = addToolOutputs(state.usage, outputs);
    state.clock.creditWaitAfterToolTurn(outputs);
    const afterTool = this.safePoints.checkpointCarrying({ openTurn: { kind: 'turn_ended', outputs } }, 'after_tool', { point: 'after_tool', turn: state.turn, outputs });
    return isPending(afterTool) ? afterTool.then(() => outputs) : outputs;
  }

  /**
   * One tool turn: plan the calls, let operators see them, run them, count them. Chained
   * promises rather than an async function: one promise less per turn (see runToolTurn).
   */
  private runToolCalls(calls: readonly ToolCall[], text: string | undefined): Promise<ToolOutput[]> {
    const { state } = this;
    const counted = (outputs: ToolOutput[]): ToolOutput[] | Promise<ToolOutput[]> => this.counted(outputs);
    try {
      const requests = state.planCalls(calls, text);
      const planned: PauseCarry = { openTurn: { kind: 'tool_calls', requests, ended: [], waiting: [] } };
      const afterLlm = this.safePoints.checkpointCarrying(planned, 'after_llm', { point: 'after_llm', turn: state.turn, calls: requests });
      // The turn's bookkeeping runs in the step that ends its calls, not in steps of its own.
      const run = (): Promise<ToolOutput[]> => this.calls.runTurn(requests, counted);
      return isPending(afterLlm) ? afterLlm.then(run) : run();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Names the turn boundary in history, so tools can map "turn N" to an event id and reset the
   * run there: by the turn's first activity, or by a memo change (see turn-boundaries.ts).
   */
  private markBoundary(options: { reportToFork?: boolean } = {}): void {
    const { state } = this;
    this.boundaries.mark(state.turn);
    // A copy: sinks run after the activation, when this turn's planner has changed the state.
    if (options.reportToFork && forkCapture) reportBoundary(state.turn, JSON.parse(JSON.stringify(carriedStateOf(state))));
  }

  // ---- control ---------------------------------------------------------------------

  /** Ends the run at once: cancels in-flight calls; the loop records them and terminates. */
  requestKill(reason: string): void {
    const { state } = this;
    if (state.control.kill || state.isTerminal) return;
    state.control.kill = { reason, source: 'operator' };
    state.emit({ type: 'kill_requested', reason, source: 'operator' });
    this.plannerTurns.cancel();
    this.toolTurns.cancel();
    this.calls.early.cancel();
  }

  // ---- endings -----------------------------------------------------------------------

  private async complete(proposed: FinalResponse): Promise<RunResult> {
    const { state } = this;
    const atSafePoint = this.safePoints.checkpoint('before_commit', { point: 'before_commit', turn: state.turn, response: proposed });
    const action = isPending(atSafePoint) ? await atSafePoint : atSafePoint;
    const response = action?.type === 'replace_response' ? action.response : proposed;
    state.emit({ type: 'plan', turn: state.turn, decision: 'final' });
    state.messages.push({ role: 'assistant', content: response.text });
    state.emit({ type: 'final', response });
    state.end('completed');
    return runResult(state, 'completed', response);
  }

  private terminate(): RunResult {
    const { state } = this;
    const cancelled = state.toolOutputs.filter((o) => o.status === 'cancelled' && o.turn === state.turn).map((o) => o.toolCallId);
    // Planned calls that never reached dispatch are closed too, so the transcript stays consistent.
    const closing = [...state.pending.values()].map(({ request }) => state.record(closedOutput(request, 'cancelled', 'the run was terminated before this call ran')));
    state.commit(closing);
    cancelled.push(...closing.map((o) => o.toolCallId));
    state.emit({ type: 'run_terminated', reason: state.control.kill?.reason ?? 'terminated', cancelledCalls: cancelled });
    state.end('terminated');
    return runResult(state, 'terminated');
  }

  fail(errorType: string, message: string): never {
    this.state.emit({ type: 'run_failed', errorType, message });
    this.state.end('failed');
    throw rejection(message, errorType);
  }
}
