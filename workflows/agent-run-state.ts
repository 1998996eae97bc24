import { ApplicationFailure, CancellationScope, condition, isCancellation, workflowInfo } from '@temporalio/workflow';
import {
  describeIssues,
  planResultSchema,
  runPolicySchema,
  defaultRunPolicy,
  type FinalizeReason,
  type FinalResponse,
  type InterventionPoint,
  type JsonValue,
  type Await,
  type Message,
  type ParsedRunInput,
  type ToolDefinition,
  type PlanResult,
  type ParsedPlanResult,
  type RetryHint,
  type RunEventDraft,
  type RunPolicy,
  type RunResult,
  type RunStatus,
  type RunStatusReport,
  type Termination,
  type ToolCall,
  type ToolOutput,
  type ToolRequest,
} from '../contracts';
import type { HookAction, HookEvent } from './agent-hooks';
import type { AgentDefinition } from './agent-registry';
import { recordAgentState } from './agent-state';
import { addToolOutputs, costReport, describeCap, emptyUsage, reachedCap, type Usage } from './budget';
import { workflowNowMs } from './clock';
import { assistantToolCalls, toolResultMessage } from './conversation';
import { EventLog } from './event-log';
import { closedOutput } from './outputs';
import type { Planner, PlannerContext } from './planner';
import { RunControl } from './run-control';
import { answersToTranscript, boundCalls, HumanInputs } from './human-inputs';
import { renderTemplate } from './render';
import { executeCall, prepareCall, type DispatchContext, type PreparedCall } from './tool-dispatch';
import { runToolTurn } from './tool-turn';

/** Thrown inside the loop when a kill or a cancellation request ends the run. */
class RunTerminated extends Error {}

const terminal: readonly RunStatus[] = ['completed', 'failed', 'terminated'];

/**
 * The state and loop of one agent run (Think-Act-Observe). The workflow function registers
 * message handlers and delegates here; everything in this class is deterministic.
 */
export class AgentRunState {
  /** Lifecycle status before pause layering: running, awaiting or terminal. */
  private baseStatus: RunStatus = 'running';
  private reportedStatus: RunStatus = 'running';
  readonly log = new EventLog();
  readonly control = new RunControl();
  readonly human = new HumanInputs();
  /** Time spent paused or waiting for humans: excluded from the time budget. */
  private idleMs = 0;
  private idleSinceMs: number | undefined;
  policy: RunPolicy;
  readonly messages: Message[];
  readonly toolOutputs: ToolOutput[] = [];
  private readonly plannerState: Record<string, JsonValue> = {};
  readonly sessionState: Record<string, JsonValue>;
  /** Calls of the current plan: planned (not yet dispatched) or in flight. */
  readonly pending = new Map<string, { request: ToolRequest; dispatched: boolean }>();
  private readonly usedCallIds = new Set<string>();
  private readonly planner: Planner;
  private usage: Usage = emptyUsage();
  private finalizeReason: FinalizeReason | undefined;
  private readonly startedAtMs = workflowNowMs();
  private instructions: string | undefined;
  private activeScope: CancellationScope | undefined;
  turn = 0;

  constructor(
    private readonly input: ParsedRunInput,
    readonly agent: AgentDefinition,
    private readonly rootScope: CancellationScope,
  ) {
    this.policy = runPolicySchema.parse({ ...defaultRunPolicy, ...agent.policy, ...input.policy });
    this.messages = [...input.history, ...input.messages].map((m) => ({ ...m }));
    this.sessionState = { ...input.sessionState };
    this.instructions = agent.instructions;
    for (const b of input.breakpoints) this.control.setBreakpoint(b.point, b.tool, b.once);
    try {
      this.planner = agent.createPlanner(input.plannerOptions);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw ApplicationFailure.nonRetryable(`invalid planner options for agent ${agent.name}: ${message}`, 'invalid_input');
    }
  }

  get status(): RunStatus {
    return this.reportedStatus;
  }

  get isTerminal(): boolean {
    return terminal.includes(this.baseStatus);
  }

  /** Runs the loop to a final response, or to termination by kill / cancellation. */
  async execute(): Promise<RunResult> {
    this.emit({ type: 'run_started', agent: this.agent.name, messageCount: this.messages.length });
    try {
      return await this.loop();
    } catch (err) {
      if (err instanceof RunTerminated || (isCancellation(err) && this.terminationRequested())) return this.terminate();
      throw err;
    }
  }

  private async loop(): Promise<RunResult> {
    await this.checkpoint('before_llm');
    let plan = await this.plan(() => this.planner.planStart({ messages: this.messages }, this.plannerContext()));
    for (;;) {
      if (plan.type === 'final') return this.complete(plan.response);
      if (this.finalizeReason) {
        // The planner ignored the Finalize turn; end the run rather than loop past a cap.
        return this.complete({ text: `Run ended: ${describeCap(this.finalizeReason, this.usage, this.policy)}.` });
      }
      const lastOutputs = plan.type === 'await' ? await this.runAwait(plan.await) : await this.runToolCalls(plan.calls);
      this.turn += 1;
      await this.checkpoint('task_boundary');
      const termination = this.checkCaps();
      await this.checkpoint('before_llm');
      plan = await this.plan(() =>
        this.planner.planResume(
          { messages: this.messages, toolOutputs: this.toolOutputs, lastOutputs, ...(termination ? { finalize: termination } : {}) },
          this.plannerContext(),
        ),
      );
    }
  }

  /** One tool turn: plan the calls, let operators see them, run them, count them. */
  private async runToolCalls(calls: readonly ToolCall[]): Promise<ToolOutput[]> {
    const requests = this.planCalls(calls);
    await this.checkpoint('after_llm', { point: 'after_llm', turn: this.turn, calls: requests });
    const outputs = await this.runTurn(requests);
    this.usage = addToolOutputs(this.usage, outputs);
    await this.checkpoint('after_tool', { point: 'after_tool', turn: this.turn, outputs });
    return outputs;
  }

  // ---- safe points -------------------------------------------------------------------

  private terminationRequested(): boolean {
    if (!this.control.kill && this.rootScope.consideredCancelled) {
      this.control.kill = { reason: 'cancellation requested through Temporal', source: 'cancellation' };
      this.emit({ type: 'kill_requested', reason: this.control.kill.reason, source: 'cancellation' });
    }
    return this.control.kill !== undefined;
  }

  /**
   * A safe point: ends the run if a kill is pending, runs the agent's hook and applies
   * queued modifications for this point, and waits here while the run is paused.
   *
   * @throws RunTerminated when the run must end.
   */
  private async checkpoint(point: InterventionPoint, hookEvent?: HookEvent, tool?: string): Promise<HookAction | undefined> {
    if (this.terminationRequested()) throw new RunTerminated();
    const event = hookEvent ?? (point === 'before_llm' || point === 'task_boundary' ? { point, turn: this.turn, messages: this.messages } : undefined);
    const action = event ? this.runHook(event) : undefined;
    if (action?.type === 'pause') this.requestPause(action.reason);
    if (this.control.hitBreakpoint(point, tool)) this.requestPause(`breakpoint at ${point}${tool ? ` (${tool})` : ''}`);
    if (this.control.isPauseRequested && !this.control.isPaused) await this.waitWhilePaused(point);
    if (this.terminationRequested()) throw new RunTerminated();
    if (point === 'before_llm') this.applyConversationModifications();
    return action;
  }

  private async waitWhilePaused(point: InterventionPoint): Promise<void> {
    const reason = this.control.pauseReason ?? 'paused';
    this.control.pausedAt = { point, turn: this.turn, sinceMs: workflowNowMs(), historyLength: workflowInfo().historyLength };
    this.emit({ type: 'paused', point, turn: this.turn, reason });
    this.refreshStatus();
    try {
      await CancellationScope.cancellable(() => condition(() => !this.control.isPauseRequested || this.control.kill !== undefined));
    } catch (err) {
      if (!isCancellation(err)) throw err;
    }
    const pausedMs = workflowNowMs() - (this.control.pausedAt?.sinceMs ?? workflowNowMs());
    this.control.pausedMs += pausedMs;
    this.control.pausedAt = undefined;
    if (!this.terminationRequested()) this.emit({ type: 'resumed', pausedMs });
    this.refreshStatus();
  }

  /** Asks the run to pause at its next safe point. */
  requestPause(reason: string): void {
    if (this.control.isPauseRequested) return;
    this.control.pauseReason = reason;
    this.emit({ type: 'pause_requested', reason });
    this.refreshStatus();
  }

  /** Lets a paused (or pausing) run go on. */
  resume(reason: string | undefined): void {
    this.control.pauseReason = undefined;
    if (!this.control.isPaused) this.emit({ type: 'resumed', pausedMs: 0, ...(reason ? { reason } : {}) });
    this.refreshStatus();
  }

  /** Ends the run at once: cancels in-flight calls; the loop records them and terminates. */
  requestKill(reason: string): void {
    if (this.control.kill || this.isTerminal) return;
    this.control.kill = { reason, source: 'operator' };
    this.emit({ type: 'kill_requested', reason, source: 'operator' });
    this.activeScope?.cancel();
  }

  private runHook(event: HookEvent): HookAction | undefined {
    const hook = this.agent.hooks?.[event.point] as ((e: HookEvent) => HookAction | undefined) | undefined;
    const action = hook?.(event);
    if (action) this.emit({ type: 'intervention_applied', source: 'hook', kind: action.type, point: event.point, detail: `agent hook: ${action.type}` });
    return action;
  }

  private applyConversationModifications(): void {
    const items = this.control.take((q) => q.intervention.kind === 'inject_message' || q.intervention.kind === 'override_system_prompt');
    for (const { id, intervention } of items) {
      if (intervention.kind === 'inject_message') {
        this.messages.push({ role: intervention.role, content: intervention.content });
        this.emit({ type: 'intervention_applied', id, source: 'operator', kind: intervention.kind, point: 'before_llm', detail: `${intervention.role} message injected` });
      } else if (intervention.kind === 'override_system_prompt') {
        this.instructions = intervention.content;
        this.emit({ type: 'intervention_applied', id, source: 'operator', kind: intervention.kind, point: 'before_llm', detail: 'system prompt overridden' });
      }
    }
  }

  // ---- planner turns -----------------------------------------------------------------

  /** Hands a decided finalize to the planner exactly once; decides one when a cap is reached. */
  private checkCaps(): Termination | undefined {
    if (!this.finalizeReason) {
      const reason = reachedCap(this.usage, this.policy, this.elapsedMs());
      if (reason) this.requestFinalize(reason);
    }
    const termination = this.pendingTermination;
    this.pendingTermination = undefined;
    return termination;
  }

  private requestFinalize(reason: FinalizeReason): void {
    if (this.finalizeReason) return;
    this.finalizeReason = reason;
    const message = describeCap(reason, this.usage, this.policy);
    this.emit({ type: 'finalize_requested', reason, message });
    this.pendingTermination = { reason, message };
  }

  /** A finalize decided but not yet handed to the planner. */
  private pendingTermination: Termination | undefined;

  /** Calls the planner in a cancellable scope, validates its result and logs notes. */
  private async plan(call: () => Promise<PlanResult> | PlanResult): Promise<ParsedPlanResult> {
    let raw: PlanResult;
    try {
      raw = await CancellationScope.cancellable(async () => {
        this.activeScope = CancellationScope.current();
        try {
          return await call();
        } finally {
          this.activeScope = undefined;
        }
      });
    } catch (err) {
      if (isCancellation(err) && this.terminationRequested()) throw new RunTerminated();
      if (isCancellation(err) || err instanceof ApplicationFailure) throw err;
      const message = err instanceof Error ? err.message : String(err);
      return this.fail('planner_failed', `planner of ${this.agent.name} failed at turn ${this.turn}: ${message}`);
    }
    const parsed = planResultSchema.safeParse(raw);
    if (!parsed.success) {
      return this.fail('invalid_plan', `planner returned an invalid PlanResult at turn ${this.turn}: ${describeIssues(parsed.error)}`);
    }
    for (const note of parsed.data.notes ?? []) this.emit({ type: 'note', turn: this.turn, note });
    return parsed.data;
  }

  /** Assigns call ids and logs the plan; the calls become pending. */
  private planCalls(calls: readonly ToolCall[]): ToolRequest[] {
    const requests = calls.map((call, index) => {
      const base = call.id ?? `call_${this.turn}_${index}`;
      let id = base;
      for (let n = 2; this.usedCallIds.has(id); n++) id = `${base}#${n}`;
      this.usedCallIds.add(id);
      return { toolCallId: id, name: call.name, args: call.args, turn: this.turn };
    });
    for (const request of requests) this.pending.set(request.toolCallId, { request, dispatched: false });
    // The assistant message opens the calls now, so every later ending can close them.
    this.messages.push(assistantToolCalls(requests));
    this.emit({ type: 'plan', turn: this.turn, decision: 'tool_calls', toolCalls: requests.map((r) => ({ toolCallId: r.toolCallId, name: r.name })) });
    return requests;
  }

  // ---- tool turns --------------------------------------------------------------------

  private async runTurn(requests: ToolRequest[]): Promise<ToolOutput[]> {
    const allowed = Math.max(0, this.policy.maxToolCalls - this.usage.toolCalls);
    const { outputs } = await runToolTurn(requests, {
      parallel: this.policy.parallelToolCalls,
      runCall: (request, index, cancelHint) => this.runCall(request, index < allowed, cancelHint),
      remainingTimeMs: () => this.policy.timeBudgetMs - this.elapsedMs(),
      isPaused: () => this.isIdle,
      setActiveScope: (scope) => {
        this.activeScope = scope;
      },
    });
    // Results enter the transcript in call order, whatever order they finished in.
    for (const output of outputs) {
      this.toolOutputs.push(output);
      this.messages.push(toolResultMessage(output));
    }
    return outputs;
  }

  private async runCall(planned: ToolRequest, withinCap: boolean, cancelHint: () => RetryHint | undefined): Promise<ToolOutput> {
    if (!withinCap) {
      return this.record(closedOutput(planned, 'tool_cap', `not run: the tool-call cap of ${this.policy.maxToolCalls} is reached`));
    }
    let request = planned;
    try {
      const action = await this.checkpoint('before_tool', { point: 'before_tool', turn: this.turn, call: request }, request.name);
      if (action?.type === 'block') return this.record(closedOutput(request, 'rejected', `blocked by agent hook: ${action.reason}`));
      if (action?.type === 'edit_args') request = { ...request, args: action.args };
    } catch (err) {
      if (err instanceof RunTerminated || isCancellation(err)) return this.record(closedOutput(request, 'cancelled', 'the run ended before this call was dispatched', cancelHint()));
      throw err;
    }
    const modified = this.applyCallModifications(request);
    if (modified.type === 'closed') return this.record(modified.output);
    request = modified.request;
    const blocked = this.control.blockReason(request.name);
    if (blocked) {
      return this.record(
        closedOutput(request, 'rejected', `tool ${request.name} is blocked: ${blocked}`, { reason: 'tool_unavailable', tool: request.name, message: blocked }),
      );
    }
    let prepared = prepareCall(this.agent.tools, request);
    // Only calls that are ready to run (valid, not blocked) are presented for confirmation.
    if (prepared.type === 'dispatch' && this.needsConfirmation(prepared.tool, prepared.request)) prepared = await this.confirm(prepared);
    if (prepared.type === 'refused') {
      if (prepared.output.error?.type === 'invalid_arguments' || prepared.output.error?.type === 'tool_unknown') {
        this.emit({ type: 'tool_call', turn: request.turn, toolCallId: request.toolCallId, name: prepared.output.name, args: prepared.output.args });
      }
      return this.record(prepared.output);
    }
    request = prepared.request;
    this.emit({ type: 'tool_call', turn: request.turn, toolCallId: request.toolCallId, name: request.name, args: request.args });
    this.pending.set(request.toolCallId, { request, dispatched: true });
    // Built per call: sequential calls see session changes of the calls before them.
    return this.record(await executeCall(this.dispatchContext(), prepared, cancelHint));
  }

  /** Applies queued edit / drop modifications addressed to this call. */
  private applyCallModifications(request: ToolRequest): { type: 'run'; request: ToolRequest } | { type: 'closed'; output: ToolOutput } {
    let current = request;
    for (const { id, intervention } of this.control.take((q) => 'toolCallId' in q.intervention && q.intervention.toolCallId === request.toolCallId)) {
      if (intervention.kind === 'drop_call') {
        this.emit({ type: 'intervention_applied', id, source: 'operator', kind: 'drop_call', point: 'before_tool', detail: `dropped ${request.toolCallId}: ${intervention.reason}` });
        return { type: 'closed', output: closedOutput(current, 'rejected', `dropped by operator: ${intervention.reason}`) };
      }
      if (intervention.kind === 'edit_call') {
        const tool = this.agent.tools.find((t) => t.name === current.name);
        const check = tool?.input.safeParse(intervention.args);
        if (check && !check.success) {
          this.emit({ type: 'intervention_rejected', id, kind: 'edit_call', reason: `edited arguments do not match ${current.name}: ${describeIssues(check.error)}` });
          continue;
        }
        this.emit({
          type: 'intervention_applied',
          id,
          source: 'operator',
          kind: 'edit_call',
          point: 'before_tool',
          detail: `${request.toolCallId} args ${JSON.stringify(current.args)} -> ${JSON.stringify(intervention.args)}`,
        });
        current = { ...current, args: intervention.args };
      }
    }
    return { type: 'run', request: current };
  }

  /** Records an output as it arrives: applies its session changes and logs the result. */
  private record(output: ToolOutput): ToolOutput {
    this.pending.delete(output.toolCallId);
    for (const [key, value] of Object.entries(output.sessionStateChanges ?? {})) {
      if (value === null) delete this.sessionState[key];
      else this.sessionState[key] = value;
    }
    if (output.sessionStateChanges) this.emit({ type: 'session_state_changed', toolCallId: output.toolCallId, changes: output.sessionStateChanges });
    this.emit({
      type: 'tool_result',
      turn: output.turn,
      toolCallId: output.toolCallId,
      name: output.name,
      status: output.status,
      resultBytes: output.resultBytes,
      ...(output.resultOmitted ? { resultOmitted: true } : {}),
      ...(output.error ? { error: output.error } : {}),
      ...(output.retryHint ? { retryHint: output.retryHint } : {}),
      durationMs: output.telemetry.durationMs,
    });
    return output;
  }

  // ---- humans in the loop -------------------------------------------------------------

  /**
   * Opens an await barrier, waits until every item is answered (or the timeout passes), and
   * returns the outputs that close the calls the items were bound to.
   */
  private async runAwait(spec: Await): Promise<ToolOutput[]> {
    const awaitId = `await_${this.turn}`;
    const bound = spec.items.flatMap(boundCalls);
    if (bound.length) {
      this.messages.push({ role: 'assistant', toolCalls: bound.map((c) => ({ id: c.toolCallId, name: c.name, args: c.args })) });
      for (const c of bound) this.pending.set(c.toolCallId, { request: { toolCallId: c.toolCallId, name: c.name, args: c.args, turn: this.turn }, dispatched: false });
    }
    const deadline = spec.timeoutMs !== undefined ? new Date(workflowNowMs() + spec.timeoutMs).toISOString() : undefined;
    this.human.openAwait(awaitId, spec, this.turn, deadline);
    this.emit({ type: 'plan', turn: this.turn, decision: 'await' });
    this.emit({ type: 'await_opened', awaitId, turn: this.turn, items: spec.items, ...(deadline ? { deadline } : {}) });
    this.refreshStatus();
    const answered = await this.waitFor(() => this.human.allAnswered, spec.timeoutMs);
    if (!answered) {
      this.emit({ type: 'await_closed', awaitId, outcome: this.control.kill ? 'cancelled' : 'timed_out' });
      if (this.control.kill) throw new RunTerminated();
      if (spec.onTimeout === 'fail') return this.fail('await_timeout', `await ${awaitId} timed out after ${spec.timeoutMs} ms without all answers`);
      if (spec.onTimeout === 'finalize') this.requestFinalize('await_timeout');
      this.human.answerByDefault();
    } else {
      this.emit({ type: 'await_closed', awaitId, outcome: 'answered' });
    }
    const open = this.human.open;
    this.human.open = undefined;
    this.refreshStatus();
    const { outputs, messages } = answersToTranscript(spec, open?.answers ?? new Map(), this.turn);
    for (const output of outputs) {
      this.record(output);
      this.toolOutputs.push(output);
      this.messages.push(toolResultMessage(output));
    }
    this.messages.push(...messages);
    return outputs;
  }

  /**
   * Waits (cancellably) for `done`, a kill, or the timeout. Returns whether `done` holds.
   *
   * @throws RunTerminated when a cancellation request arrives while waiting.
   */
  private async waitFor(done: () => boolean, timeoutMs?: number): Promise<boolean> {
    const stop = (): boolean => done() || this.control.kill !== undefined;
    try {
      await CancellationScope.cancellable(async () => {
        if (timeoutMs === undefined) await condition(stop);
        else await condition(stop, timeoutMs);
      });
    } catch (err) {
      if (isCancellation(err) && this.terminationRequested()) throw new RunTerminated();
      throw err;
    }
    return done();
  }

  private needsConfirmation(tool: ToolDefinition, request: ToolRequest): boolean {
    const policy = this.input.confirmation;
    if (policy?.exempt?.includes(tool.name) || this.human.alwaysApproved.has(tool.name)) return false;
    if (policy?.all || policy?.tools?.includes(tool.name)) return true;
    const flag = tool.requiresConfirmation;
    return typeof flag === 'function' ? flag(request.args) : flag;
  }

  /**
   * Waits for a human decision on a call and applies it: the call to dispatch, or the
   * output that closes it (rejected, or cancelled by a kill).
   */
  private async confirm(prepared: Extract<PreparedCall, { type: 'dispatch' }>): Promise<PreparedCall> {
    const { request } = prepared;
    this.human.requestApproval(request);
    this.emit({ type: 'approval_requested', turn: request.turn, toolCallId: request.toolCallId, name: request.name, args: request.args });
    this.refreshStatus();
    let decided = false;
    try {
      decided = await this.waitFor(() => this.human.approvals.get(request.toolCallId)?.decision !== undefined);
    } finally {
      if (!decided) this.human.approvals.delete(request.toolCallId);
      this.refreshStatus();
    }
    const decision = this.human.takeDecision(request.toolCallId);
    this.refreshStatus();
    if (!decided || !decision) return { type: 'refused', output: closedOutput(request, 'cancelled', 'the run ended while this call waited for confirmation') };
    const original = { name: request.name, args: request.args };
    const by = decision.by ? { by: decision.by } : {};
    switch (decision.decision) {
      case 'approve':
        this.emit({ type: 'approval_decided', toolCallId: request.toolCallId, decision: 'approve', always: decision.always, ...by });
        return prepared;
      case 'reject':
        this.emit({ type: 'approval_decided', toolCallId: request.toolCallId, decision: 'reject', reason: decision.reason, ...by });
        return { type: 'refused', output: closedOutput(request, 'rejected', `rejected by a human: ${decision.reason}`) };
      case 'edit':
      case 'replace': {
        const updated = { name: decision.decision === 'replace' ? decision.name : request.name, args: decision.args };
        this.emit({ type: 'approval_decided', toolCallId: request.toolCallId, decision: decision.decision, original, updated, ...by });
        return prepareCall(this.agent.tools, { ...request, ...updated });
      }
    }
  }

  // ---- endings -----------------------------------------------------------------------

  private async complete(proposed: FinalResponse): Promise<RunResult> {
    const action = await this.checkpoint('before_commit', { point: 'before_commit', turn: this.turn, response: proposed });
    const response = action?.type === 'replace_response' ? action.response : proposed;
    this.emit({ type: 'plan', turn: this.turn, decision: 'final' });
    this.messages.push({ role: 'assistant', content: response.text });
    this.emit({ type: 'final', response });
    this.setBaseStatus('completed');
    return this.result('completed', response);
  }

  private terminate(): RunResult {
    const cancelled = this.toolOutputs.filter((o) => o.status === 'cancelled' && o.turn === this.turn).map((o) => o.toolCallId);
    // Planned calls that never reached dispatch are closed too, so the transcript stays consistent.
    for (const { request } of this.pending.values()) {
      const output = this.record(closedOutput(request, 'cancelled', 'the run was terminated before this call ran'));
      this.toolOutputs.push(output);
      this.messages.push(toolResultMessage(output));
      cancelled.push(output.toolCallId);
    }
    const reason = this.control.kill?.reason ?? 'terminated';
    this.emit({ type: 'run_terminated', reason, cancelledCalls: cancelled });
    this.setBaseStatus('terminated');
    return this.result('terminated');
  }

  private result(status: 'completed' | 'terminated', response?: FinalResponse): RunResult {
    return {
      status,
      ...(response ? { final: response } : {}),
      ...(this.finalizeReason ? { finalizeReason: this.finalizeReason } : {}),
      iterations: this.usage.iterations,
      cost: this.cost(),
      sessionState: this.sessionState,
      lastEventSeq: this.log.lastSeq,
    };
  }

  private fail(errorType: string, message: string): never {
    this.emit({ type: 'run_failed', errorType, message });
    this.setBaseStatus('failed');
    throw ApplicationFailure.nonRetryable(message, errorType);
  }

  // ---- status and reports ------------------------------------------------------------

  private setBaseStatus(to: RunStatus): void {
    this.baseStatus = to;
    this.refreshStatus();
  }

  /** Recomputes the reported status (pause layered over the lifecycle) and logs a change. */
  refreshStatus(): void {
    const to: RunStatus = this.isTerminal
      ? this.baseStatus
      : this.control.isPaused && this.control.isPauseRequested
        ? 'paused'
        : this.control.isPauseRequested
          ? 'pausing'
          : this.human.isWaiting
            ? 'awaiting'
            : this.baseStatus;
    this.trackIdle(to === 'paused' || to === 'awaiting' || (this.control.isPaused && !this.isTerminal));
    if (to === this.reportedStatus) return;
    const from = this.reportedStatus;
    this.reportedStatus = to;
    this.emit({ type: 'status_changed', from, to });
    this.onStatusChange?.(to);
  }

  /** Called after every reported status change (the workflow mirrors it to a search attribute). */
  onStatusChange: ((status: RunStatus) => void) | undefined;

  emit(draft: RunEventDraft): void {
    this.log.append(draft);
  }

  private trackIdle(idle: boolean): void {
    const now = workflowNowMs();
    if (idle && this.idleSinceMs === undefined) this.idleSinceMs = now;
    if (!idle && this.idleSinceMs !== undefined) {
      this.idleMs += now - this.idleSinceMs;
      this.idleSinceMs = undefined;
    }
  }

  /** Paused, or waiting for a human: the time budget stands still. */
  private get isIdle(): boolean {
    return this.idleSinceMs !== undefined;
  }

  /** Run time so far, excluding time spent paused or waiting for humans. */
  private elapsedMs(): number {
    const idleNow = this.idleSinceMs !== undefined ? workflowNowMs() - this.idleSinceMs : 0;
    return workflowNowMs() - this.startedAtMs - this.idleMs - idleNow;
  }

  cost() {
    return costReport(this.usage, this.policy, this.elapsedMs());
  }

  private dispatchContext(): DispatchContext {
    const info = workflowInfo();
    return {
      workflowId: info.workflowId,
      runId: info.runId,
      agent: this.agent.name,
      ...(this.input.sessionId ? { sessionId: this.input.sessionId } : {}),
      resultByteBudget: this.policy.toolResultByteBudget,
      sessionState: { ...this.sessionState },
    };
  }

  private plannerContext(): PlannerContext {
    const info = workflowInfo();
    return {
      runId: info.runId,
      workflowId: info.workflowId,
      agent: this.agent.name,
      turn: this.turn,
      state: recordAgentState(this.plannerState),
      sessionState: this.sessionState,
      ...(this.instructions !== undefined ? { instructions: renderTemplate(this.instructions, this.sessionState) } : {}),
      emitNote: (note) => this.emit({ type: 'note', turn: this.turn, note }),
      recordModelUsage: ({ tokens, modelCalls }) => {
        this.usage = { ...this.usage, tokens: this.usage.tokens + tokens, modelCalls: this.usage.modelCalls + modelCalls };
      },
    };
  }

  /** Snapshot for the status query. */
  statusReport(): RunStatusReport {
    return {
      status: this.status,
      agent: this.agent.name,
      iteration: this.usage.iterations,
      turn: this.turn,
      pendingCalls: [...this.pending.values()].map(({ request, dispatched }) => ({ toolCallId: request.toolCallId, name: request.name, dispatched })),
      ...(this.finalizeReason ? { finalizeReason: this.finalizeReason } : {}),
      ...(this.control.pausedAt ? { pausedAt: { point: this.control.pausedAt.point, turn: this.control.pausedAt.turn } } : {}),
      ...(this.control.pauseReason ? { pauseReason: this.control.pauseReason } : {}),
      sessionState: this.sessionState,
      control: {
        blockedTools: this.control.blockedTools,
        breakpoints: this.control.breakpointList,
        queuedInterventions: this.control.queued.map((q) => ({ id: q.id, kind: q.intervention.kind })),
      },
      cost: this.cost(),
      lastEventSeq: this.log.lastSeq,
    };
  }
}
