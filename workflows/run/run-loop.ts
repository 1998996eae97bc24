import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  isCancellation,
  workflowInfo,
} from '@temporalio/workflow';
import { describeIssues, jsonByteLength } from '../../contracts/json';
import type { FinalResponse, ParsedPlanResult, PlanResult, Termination } from '../../contracts/plan';
import type { InterventionPoint } from '../../contracts/control';
import type { ToolCall, ToolOutput, EarlyToolCall } from '../../contracts/tools';
import type { RunInput, RunResult } from '../../contracts/run';
import { pauseSignal, resumeSignal } from '../../contracts/definitions';
import { parsePlanResult } from '../../contracts/fast-schemas';
import type { HookAction, HookEvent } from '../agents/agent-hooks';
import { recordAgentState } from './agent-state';
import { runAwait, type AwaitHost } from '../human/await-step';
import type { CarriedOpenTurn } from '../../contracts/carried-state';
import { addModelUsage, addToolOutputs, describeCap, modelUsageEvent } from '../state/budget';
import { CallRunner } from '../calls/call-runner';
import { ToolTurns } from '../calls/tool-turns';
import { workflowNowMs } from '../kernel/clock';
import { closedOutput } from '../kernel/outputs';
import type { Planner, PlannerContext } from '../agents/planner';
import { renderTemplate } from './render';
import { carriedInputMaxBytes } from '../state/carry';
import type { RunState } from '../state/run-state';
import { RunTerminated } from '../kernel/run-terminated';
import { isPending, pauseHold } from '../state/safe-point';
import { forkCapture } from './fork-capture';
import { syncToolsets } from './toolset-sync';
import { reportBoundary } from '../bundle/bundle-sinks';
import { rejection } from '../kernel/failures';
import { continueWhileWaiting, firstTaskBeginsRun, isInBaseline, isPatched, modelUsageEvents } from '../versioning/patches';
import { boundaryConcluderInstalled, TurnBoundaries } from './turn-boundaries';
import { watchTimeBudget } from './time-budget-watch';
import { providerWaitsOf } from '../kernel/provider-waits';

/** What a run holding at a pause carries when it continues as new there: the open turn, or nothing at a boundary. */
interface PauseCarry {
  readonly openTurn?: CarriedOpenTurn;
}

/** Bundle-wide settings of runs (from `createAgentWorkflows`). */
export interface RunLoopOptions {
  /** See AgentWorkflowsOptions.compactToolInputs. */
  readonly compactToolInputs?: boolean;
}

/**
 * The Think-Act-Observe loop of one run: planner turns, tool turns and awaits, with safe
 * points between them where control requests take effect. Deterministic; its only I/O is
 * activities scheduled by planners and tools.
 */
export class RunLoop {
  /** Scope of the planner turn in progress (a kill cancels it). */
  private plannerScope: CancellationScope | undefined;
  /** Set while a planner turn takes early calls (early dispatch): its turn and tools. */
  private earlyWindow: { turn: number; tools: string[] } | undefined;
  /** The tool turn in progress (a kill or the time budget cancels its calls), shared with the calls and the budget watch. */
  private readonly toolTurns = new ToolTurns();
  private readonly calls: CallRunner;
  private readonly boundaries: TurnBoundaries;
  /** Set when the run is about to continue as new: long polls answer so handlers can finish. */
  closing = false;
  /** Set when it is about to continue as new in a wait for people: pause updates in flight answer too. */
  continuingWhileWaiting = false;
  /** Set once this execution found its state too large to carry (reported once). */
  private carryRefused = false;
  /** Set when this execution waits on without continuing as new (a run recorded before 1.0.0, or a state too large to carry). */
  private waitsWithoutContinuing = false;
  /** The continue-as-new of a wait in progress: the waits that see it due share it. */
  private continuation: Promise<'moved' | 'refused'> | undefined;
  /** Set around a safe point where a pause may continue as new: what the next execution goes on with. */
  private pauseCarry: PauseCarry | undefined;

  constructor(
    readonly state: RunState,
    private readonly planner: Planner,
    private readonly rootScope: CancellationScope,
    options: RunLoopOptions = {},
  ) {
    const byCommands = boundaryConcluderInstalled();
    this.boundaries = new TurnBoundaries(byCommands);
    this.calls = new CallRunner(state, this.toolTurns, {
      checkpoint: (point, event, tool) => this.checkpoint(point, event, tool),
      waitFor: (done) => this.waitFor(done),
      holdWhilePaused: () => this.holdWhilePaused('before_tool'),
      compactToolInputs: options.compactToolInputs ?? false,
    });
  }

  /**
   * Starts the run's loop: the run's result (a final response), or its failure for
   * {@link afterFailure}; or it continues as new. The workflow function awaits it.
   */
  start(): Promise<RunResult> {
    const { state } = this;
    if (state.generation === 0) state.emit({ type: 'run_started', agent: state.agent.name, messageCount: state.messages.length });
    watchTimeBudget({ state, toolTurns: this.toolTurns, scope: this.rootScope });
    return this.loop();
  }

  /** The result of a run whose loop failed: terminated when a kill or a cancellation ended it; otherwise the failure. */
  async afterFailure(err: unknown): Promise<RunResult> {
    if (!this.endsByTermination(err)) throw err;
    await this.calls.discardEarly('the run was terminated');
    return this.terminate();
  }

  private endsByTermination(err: unknown): boolean {
    return err instanceof RunTerminated || (isCancellation(err) && this.terminationRequested());
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
      if (isInBaseline(firstTaskBeginsRun)) this.boundaries.beginWithTask(state.turn);
      else this.markBoundary();
      const beforeLlm = this.checkpoint('before_llm');
      if (isPending(beforeLlm)) await beforeLlm;
      const first = this.plan(() => this.withToolsets(() => this.planner.planStart({ messages: state.messages }, this.plannerContext())));
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
      const boundary = this.checkpointCarrying({}, 'task_boundary');
      if (isPending(boundary)) await boundary;
      if (state.shouldContinueAsNew()) await this.continueAsNew();
      const next = this.resumeTurn(lastOutputs);
      plan = isPending(next) ? await next : next;
    }
  }

  /** The planner's next turn, with the Finalize request when a cap was reached. */
  private resumeTurn(lastOutputs: readonly ToolOutput[]): Promise<ParsedPlanResult> | ParsedPlanResult {
    const { state } = this;
    const termination = state.takeTermination();
    const atSafePoint = this.checkpoint('before_llm');
    if (isPending(atSafePoint)) return atSafePoint.then(() => this.planResume(lastOutputs, termination));
    return this.planResume(lastOutputs, termination);
  }

  private planResume(lastOutputs: readonly ToolOutput[], termination: Termination | undefined): Promise<ParsedPlanResult> | ParsedPlanResult {
    const { state } = this;
    return this.plan(() =>
      this.withToolsets(() =>
        this.planner.planResume(
          {
            messages: state.messages,
            toolOutputs: state.toolOutputs,
            lastOutputs,
            ...(termination ? { finalize: termination } : {}),
            ...(state.outputs.size ? { outputs: Object.fromEntries(state.outputs) } : {}),
          },
          this.plannerContext(),
        ),
      ),
    );
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

  private awaitHost(): AwaitHost {
    return { waitFor: (done, timeoutMs) => this.waitFor(done, timeoutMs), fail: (t, m) => this.fail(t, m) };
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
    state.creditWaitAfterToolTurn(outputs);
    const afterTool = this.checkpointCarrying({ openTurn: { kind: 'turn_ended', outputs } }, 'after_tool', { point: 'after_tool', turn: state.turn, outputs });
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
      const afterLlm = this.checkpointCarrying(planned, 'after_llm', { point: 'after_llm', turn: state.turn, calls: requests });
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
    if (options.reportToFork && forkCapture) reportBoundary(state.turn, JSON.parse(JSON.stringify(state.toCarried())));
  }

  // ---- safe points -------------------------------------------------------------------

  private terminationRequested(): boolean {
    const { control } = this.state;
    if (!control.kill && this.rootScope.consideredCancelled) {
      control.kill = { reason: 'cancellation requested through Temporal', source: 'cancellation' };
      this.state.emit({ type: 'kill_requested', reason: control.kill.reason, source: 'cancellation' });
    }
    return control.kill !== undefined;
  }

  /**
   * A safe point: ends the run if a kill is pending, runs the agent's hook and applies
   * queued modifications for this point, and waits here while the run is paused. Returns at
   * once (no promise) when there is nothing to wait for, which is almost always: callers
   * await only a returned promise.
   *
   * @throws RunTerminated when the run must end.
   */
  private checkpoint(point: InterventionPoint, hookEvent?: HookEvent, tool?: string): Promise<HookAction | undefined> | HookAction | undefined {
    const { state } = this;
    if (this.terminationRequested()) throw new RunTerminated();
    const event = hookEvent ?? (point === 'before_llm' || point === 'task_boundary' ? { point, turn: state.turn, messages: state.messages } : undefined);
    const action = event ? this.runHook(event) : undefined;
    if (action?.type === 'pause') this.requestPause(action.reason);
    if (state.control.hitBreakpoint(point, tool)) this.requestPause(`breakpoint at ${point}${tool ? ` (${tool})` : ''}`);
    if (state.control.isPauseRequested) return this.holdAtCheckpoint(point, action);
    if (point === 'before_llm') this.applyConversationModifications();
    return action;
  }

  /**
   * {@link checkpoint} at a point where a pause may continue as new (when operators' messages
   * pile up while it holds): `carry` is what the next execution goes on with.
   */
  private checkpointCarrying(carry: PauseCarry, point: InterventionPoint, hookEvent?: HookEvent): Promise<HookAction | undefined> | HookAction | undefined {
    this.pauseCarry = carry;
    try {
      return this.checkpoint(point, hookEvent);
    } finally {
      this.pauseCarry = undefined;
    }
  }

  private async holdAtCheckpoint(point: InterventionPoint, action: HookAction | undefined): Promise<HookAction | undefined> {
    await this.holdWhilePaused(point);
    if (this.terminationRequested()) throw new RunTerminated();
    if (point === 'before_llm') this.applyConversationModifications();
    return action;
  }

  /**
   * Waits here while a pause is requested. The first branch to arrive marks the run paused at
   * this point; a parallel branch arriving while it is paused waits as well.
   *
   * @throws RunTerminated when a kill arrives while waiting.
   */
  private async holdWhilePaused(point: InterventionPoint): Promise<void> {
    const hold = pauseHold(this.state.control);
    if (hold === 'go') return;
    if (hold === 'pause_here') {
      await this.waitWhilePaused(point);
    } else {
      await this.untilResumedOrKilled();
    }
    if (this.terminationRequested()) throw new RunTerminated();
  }

  /**
   * Waits (cancellably) until the pause is lifted or a kill arrives. With `carry` (a safe point
   * of the loop, see {@link checkpointCarrying}) it continues as new when operators' messages
   * reach their bounds meanwhile, and the next execution holds again.
   */
  private async untilResumedOrKilled(carry?: PauseCarry): Promise<void> {
    const { control } = this.state;
    const mayContinue = (): boolean => carry !== undefined && this.mayContinueWhilePaused();
    try {
      await CancellationScope.cancellable(() => condition(() => !control.isPauseRequested || control.kill !== undefined || mayContinue()));
    } catch (err) {
      if (!isCancellation(err)) throw err;
    }
    if (carry && control.isPauseRequested && control.kill === undefined && mayContinue()) {
      await this.continueFromWait(() => (this.calls.busy ? undefined : carry));
      return this.untilResumedOrKilled(carry);
    }
  }

  private mayContinueWhilePaused(): boolean {
    return !this.waitsWithoutContinuing && !this.closing && this.state.continuationDue() && !this.calls.busy;
  }

  private async waitWhilePaused(point: InterventionPoint): Promise<void> {
    const { state } = this;
    const { control } = state;
    // Set by the caller around this safe point, read before the first await.
    const carry = this.pauseCarry;
    control.pausedAt = { point, turn: state.turn, sinceMs: workflowNowMs(), historyLength: workflowInfo().historyLength };
    state.emit({ type: 'paused', point, turn: state.turn, reason: control.pauseReason ?? 'paused' });
    state.refreshStatus();
    await this.untilResumedOrKilled(carry);
    const pausedMs = workflowNowMs() - (control.pausedAt?.sinceMs ?? workflowNowMs());
    control.pausedAt = undefined;
    if (!this.terminationRequested()) state.emit({ type: 'resumed', pausedMs });
    state.refreshStatus();
  }

  /** Asks the run to pause at its next safe point. */
  requestPause(reason: string): void {
    const { state } = this;
    if (state.control.isPauseRequested) return;
    state.control.pauseReason = reason;
    state.emit({ type: 'pause_requested', reason });
    state.refreshStatus();
    this.signalChildren(pauseSignal, { reason: `parent paused: ${reason}` });
  }

  /** Passes pause and resume on to the sub-agent runs in flight (no command when there are none). */
  private signalChildren(signal: typeof pauseSignal | typeof resumeSignal, payload: { reason: string }): void {
    for (const child of this.state.children.values()) {
      if (child.status !== 'running') continue;
      // A child that already ended (or refuses) is no reason to fail the parent.
      getExternalWorkflowHandle(child.workflowId).signal(signal, payload).catch(() => undefined);
    }
  }

  /** Lets a paused (or pausing) run go on. */
  resume(reason: string | undefined): void {
    const { state } = this;
    state.control.pauseReason = undefined;
    if (!state.control.isPaused) state.emit({ type: 'resumed', pausedMs: 0, ...(reason ? { reason } : {}) });
    state.refreshStatus();
    this.signalChildren(resumeSignal, { reason: reason ? `parent resumed: ${reason}` : 'parent resumed' });
  }

  /** Ends the run at once: cancels in-flight calls; the loop records them and terminates. */
  requestKill(reason: string): void {
    const { state } = this;
    if (state.control.kill || state.isTerminal) return;
    state.control.kill = { reason, source: 'operator' };
    state.emit({ type: 'kill_requested', reason, source: 'operator' });
    this.plannerScope?.cancel();
    this.toolTurns.cancel();
    this.calls.cancelEarly();
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

  /** A call the model activity reported early: started if this planner turn still takes it. */
  acceptEarlyCall(call: EarlyToolCall): void {
    const { state } = this;
    const window = this.earlyWindow;
    if (!window || window.turn !== call.turn || !window.tools.includes(call.name) || state.control.isPauseRequested || state.control.kill) return;
    if (state.usage.toolCalls + this.calls.earlyCount >= state.policy.maxToolCalls) return;
    this.calls.startEarly({ toolCallId: call.toolCallId, name: call.name, args: call.args, turn: state.turn });
  }

  private runHook(event: HookEvent): HookAction | undefined {
    const hook = this.state.agent.hooks?.[event.point] as ((e: HookEvent) => HookAction | undefined) | undefined;
    let action: HookAction | undefined;
    try {
      action = hook?.(event);
    } catch (err) {
      // A bug in agent code: retrying the workflow task would fail the same way forever.
      throw rejection(`agent ${this.state.agent.name}: its ${event.point} hook threw: ${err instanceof Error ? err.message : String(err)}`, 'hook_failed');
    }
    if (action) this.state.emit({ type: 'intervention_applied', source: 'hook', kind: action.type, point: event.point, detail: `agent hook: ${action.type}` });
    return action;
  }

  private applyConversationModifications(): void {
    const { state } = this;
    const items = state.control.take((q) => q.intervention.kind === 'inject_message' || q.intervention.kind === 'override_system_prompt');
    for (const { id, intervention } of items) {
      if (intervention.kind === 'inject_message') {
        state.messages.push({ role: intervention.role, content: intervention.content });
        state.emit({ type: 'intervention_applied', id, source: 'operator', kind: intervention.kind, point: 'before_llm', detail: `${intervention.role} message injected` });
      } else if (intervention.kind === 'override_system_prompt') {
        state.instructionsOverride = intervention.content;
        state.emit({ type: 'intervention_applied', id, source: 'operator', kind: intervention.kind, point: 'before_llm', detail: 'system prompt overridden' });
      }
    }
  }

  /**
   * Waits (cancellably) for `done`, a kill, or the timeout. Returns whether `done` holds.
   *
   * @throws RunTerminated when a cancellation request arrives while waiting.
   */
  private async waitFor(done: () => boolean, timeoutMs?: number): Promise<boolean> {
    const stop = (): boolean => done() || this.state.control.kill !== undefined || this.mayContinueWhileWaiting();
    const until = timeoutMs === undefined ? undefined : workflowNowMs() + timeoutMs;
    try {
      await CancellationScope.cancellable(async () => {
        if (timeoutMs === undefined) await condition(stop);
        else await condition(stop, timeoutMs);
      });
    } catch (err) {
      if (isCancellation(err) && this.terminationRequested()) {
        // Temporal's cancel ends the run like a kill: the wait ends unfulfilled and the run
        // closes at its next safe point, after the turn's other calls are answered.
        return done();
      }
      throw err;
    }
    if (!done() && this.state.control.kill === undefined && this.mayContinueWhileWaiting()) return this.continueWhileWaiting(done, until);
    return done();
  }

  // ---- continue-as-new while waiting -------------------------------------------------

  /**
   * True when a wait for people should end this execution: it has accepted enough messages (or
   * history) to continue as new, and its turn is at rest ({@link openTurnAtRest}).
   */
  private mayContinueWhileWaiting(): boolean {
    return !this.waitsWithoutContinuing && !this.closing && this.state.continuationDue() && this.openTurnAtRest() !== undefined;
  }

  /** The turn in progress as the next execution takes it over, when nothing of it is in flight. */
  private openTurnAtRest(): CarriedOpenTurn | undefined {
    const open = this.state.human.open;
    if (open) return { kind: 'await', awaitId: open.awaitId, spec: open.spec, answers: [...open.answers.values()], ...(open.deadline ? { deadline: open.deadline } : {}) };
    return this.calls.openTurnAtRest();
  }

  /**
   * A wait for people that could last for ever must not let the execution reach Temporal's
   * limits (updates, signals, events): operators' messages keep coming while it waits. It
   * continues as new, carrying the open turn; every wait of the turn shares that one
   * continuation. When the turn moved meanwhile (a decision came), it waits on and tries again at
   * the next chance; when it cannot continue (a run recorded before 1.0.0, a state too large),
   * it waits on in this execution.
   */
  private async continueWhileWaiting(done: () => boolean, until: number | undefined): Promise<boolean> {
    await this.continueFromWait(() => {
      const openTurn = this.openTurnAtRest();
      return openTurn && { openTurn };
    });
    return this.waitFor(done, until === undefined ? undefined : Math.max(1, until - workflowNowMs()));
  }

  /**
   * The continue-as-new of a wait (for people, or at a pause), shared by the waits that see it
   * due. Returns only when the run did not continue; the wait goes on. A run recorded before
   * 1.0.0 (replayed without the marker) or a state too large to carry waits on in this execution.
   */
  private async continueFromWait(atRest: () => PauseCarry | undefined): Promise<void> {
    if (!isPatched(continueWhileWaiting)) {
      this.waitsWithoutContinuing = true;
      return;
    }
    this.continuation ??= this.continueAsNewAtRest(atRest);
    const outcome = await this.continuation;
    this.continuation = undefined;
    if (outcome === 'refused') this.waitsWithoutContinuing = true;
  }

  /**
   * Continues as new with what `atRest` says to carry, once handlers have finished, if the run is
   * still at rest then (undefined: something moved, try again later). Returns only when it did
   * not continue: `refused` when its state is too large to carry.
   */
  private async continueAsNewAtRest(atRest: () => PauseCarry | undefined): Promise<'moved' | 'refused'> {
    this.closing = true;
    this.continuingWhileWaiting = true;
    await condition(allHandlersFinished);
    const carry = this.state.control.kill === undefined && !this.rootScope.consideredCancelled ? atRest() : undefined;
    if (carry) await this.continueAsNew(carry.openTurn);
    this.closing = false;
    this.continuingWhileWaiting = false;
    return carry ? 'refused' : 'moved';
  }

  // ---- planner turns -----------------------------------------------------------------

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
    if (isCancellation(err) && this.terminationRequested()) throw new RunTerminated();
    if (isCancellation(err)) throw err;
    // A planner's business failure (e.g. a model error) keeps its type, and is logged.
    if (err instanceof ApplicationFailure) return this.fail(err.type ?? 'planner_failed', err.message);
    const message = err instanceof Error ? err.message : String(err);
    return this.fail('planner_failed', `planner of ${this.state.agent.name} failed at turn ${this.state.turn}: ${message}`);
  }

  /** Validates a planner's result and logs its notes. */
  private checkPlan(raw: PlanResult): Promise<ParsedPlanResult> | ParsedPlanResult {
    const { state } = this;
    const parsed = parsePlanResult(raw);
    if (!parsed.success) return this.fail('invalid_plan', `planner returned an invalid PlanResult at turn ${state.turn}: ${describeIssues(parsed.error)}`);
    for (const note of parsed.data.notes ?? []) state.emit({ type: 'note', turn: state.turn, note });
    if (parsed.data.type !== 'tool_calls' && this.calls.earlyCount) {
      return this.calls.discardEarly(`the final answer has no tool calls (${parsed.data.type})`).then(() => parsed.data);
    }
    return parsed.data;
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
        if (isInBaseline(modelUsageEvents)) state.emit(modelUsageEvent(state.turn, report));
      },
    };
  }

  // ---- endings -----------------------------------------------------------------------

  private async complete(proposed: FinalResponse): Promise<RunResult> {
    const { state } = this;
    const atSafePoint = this.checkpoint('before_commit', { point: 'before_commit', turn: state.turn, response: proposed });
    const action = isPending(atSafePoint) ? await atSafePoint : atSafePoint;
    const response = action?.type === 'replace_response' ? action.response : proposed;
    state.emit({ type: 'plan', turn: state.turn, decision: 'final' });
    state.messages.push({ role: 'assistant', content: response.text });
    state.emit({ type: 'final', response });
    state.end('completed');
    return state.result('completed', response);
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
    return state.result('terminated');
  }

  fail(errorType: string, message: string): never {
    this.state.emit({ type: 'run_failed', errorType, message });
    this.state.end('failed');
    throw rejection(message, errorType);
  }

  /**
   * Continues as new at this turn boundary, carrying compacted state within a byte bound;
   * invisible to clients. When even the most compacted state passes the bound (the session or
   * planner state alone is too large), the run goes on in this execution and says so once.
   */
  private async continueAsNew(openTurn?: CarriedOpenTurn): Promise<void> {
    const { state } = this;
    const next = state.continuedInput(carriedInputMaxBytes, openTurn);
    const { input } = next;
    if (input === undefined) {
      if (!this.carryRefused) {
        this.carryRefused = true;
        state.emit({
          type: 'note',
          turn: state.turn,
          note: { text: `not continued as new: the carried state would be ${next.bytes} bytes, over the ${carriedInputMaxBytes}-byte bound (session state ${jsonByteLength(state.sessionState)} bytes, planner state ${jsonByteLength(state.plannerState)} bytes); the run goes on in this execution` },
        });
      }
      return;
    }
    if (openTurn) {
      // Handlers have finished (continueAsNewAtRest): what the turn's waits report as they end does not matter now.
      state.continuing = true;
      return continueAsNew<(input: RunInput) => Promise<RunResult>>(input);
    }
    this.closing = true;
    await condition(allHandlersFinished);
    return continueAsNew<(input: RunInput) => Promise<RunResult>>(input);
  }
}
