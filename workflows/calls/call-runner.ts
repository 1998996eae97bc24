import { CancellationScope, condition, getExternalWorkflowHandle, isCancellation, workflowInfo } from '@temporalio/workflow';
import { describeIssues, type JsonValue } from '../../contracts/json';
import { pauseSignal } from '../../contracts/definitions';
import type { DependencyOutput, RetryHint, ToolOutput, ToolRequest } from '../../contracts/tools';
import type { CarriedOpenTurn } from '../../contracts/carried-state';
import type { ToolDefinition } from '../../contracts/tool-definition';
import type { HookAction, HookEvent } from '../agents/agent-hooks';
import { closedOutput } from '../kernel/outputs';
import { RunTerminated } from '../kernel/run-terminated';
import { isPending } from '../state/safe-point';
import type { RunState } from '../state/run-state';
import { executeCall, prepareCall, type DispatchContext, type PreparedCall } from './tool-dispatch';
import { runToolTurn, type CallReport, type GraphCallOptions, type ToolTurnHost } from './tool-turn';
import { rethrow, settleSteps, waitOn, type CallStep } from './call-steps';
import { executeSubAgent, withChildUsage, type SubAgentHost } from './sub-agent';
import type { ToolTurns } from './tool-turns';
import { rejection } from '../kernel/failures';

/** The output of a call the run ended (kill, cancellation) before it was dispatched. */
function endedBeforeDispatch(request: ToolRequest, hint: RetryHint | undefined): ToolOutput {
  return closedOutput(request, 'cancelled', 'the run ended before this call was dispatched', hint);
}

/** What running calls needs from the loop. */
export interface CallRunnerHost {
  /** Returns a promise only when the safe point has to wait (a pause). */
  checkpoint(point: 'before_tool', event: HookEvent, tool: string): Promise<HookAction | undefined> | HookAction | undefined;
  /** Waits (cancellably) for `done` or a kill; returns whether `done` holds. */
  waitFor(done: () => boolean): Promise<boolean>;
  /** Waits while a pause is requested (marking the run paused if no branch has); throws RunTerminated on a kill. */
  holdWhilePaused(): Promise<void>;
  /** Tool activities get compact inputs (see AgentWorkflowsOptions.compactToolInputs). */
  readonly compactToolInputs: boolean;
}

/**
 * Runs the calls of one tool turn: the before_tool safe point, operator edits and drops,
 * blocks, validation, confirmation by a human, then one activity per call.
 */
/** A call started while the model was still answering (early dispatch). */
interface EarlyCall {
  readonly request: ToolRequest;
  readonly scope: CancellationScope;
  readonly promise: Promise<ToolOutput>;
}

function sameCall(a: ToolRequest, b: ToolRequest): boolean {
  return a.toolCallId === b.toolCallId && a.name === b.name && JSON.stringify(a.args) === JSON.stringify(b.args);
}

/**
 * One call in flight: the record that goes through {@link CallRunner}'s steps, from the plan to
 * its output. `request` changes as hooks, operators and humans edit the call.
 */
interface CallInFlight {
  request: ToolRequest;
  readonly graph: GraphCallOptions | undefined;
  /** Records the call's output (through the graph's `settle` in a dependency-aware plan). */
  readonly finish: (output: ToolOutput) => ToolOutput;
  /**
   * Where the call reports its end ({@link ToolTurnHost.reportCall}), while its first step runs:
   * a call that reaches its activity in that step reports from the activity's step and sets
   * `reported`; one that waits first settles through its promise.
   */
  report?: CallReport;
  reported?: boolean;
}


/** A tool turn carried across continue-as-new (see {@link CallRunner.openTurnAtRest}). */
export type CarriedToolTurn = Extract<CarriedOpenTurn, { kind: 'tool_calls' }>;

export class CallRunner {
  /** Tool activities of the current turn in flight (bounded by the policy's maxConcurrentToolCalls). */
  private dispatched = 0;
  /** The calls of the turn in progress, and those of them that have begun their steps. */
  private openRequests: readonly ToolRequest[] | undefined;
  private readonly started = new Set<string>();
  /** In a turn carried from the previous execution: the calls that had ended, and those that waited for a decision. */
  private carried: { readonly ended: ReadonlyMap<string, ToolOutput>; readonly waiting: ReadonlyMap<string, ToolRequest> } | undefined;
  /** Calls started early in the current planner turn, by call id, until the plan claims them. */
  private readonly early = new Map<string, EarlyCall>();
  /** Early calls the plan did not claim: cancelled, answered once they stopped. */
  private orphans: EarlyCall[] = [];

  /** How many calls were started early in the current planner turn. */
  get earlyCount(): number {
    return this.early.size;
  }

  /**
   * Starts a call the model activity reported while the model still answers, if it is a valid
   * call of a `startEarly` tool that needs no confirmation; the plan claims it later (same id,
   * tool and arguments) or it is cancelled and discarded.
   */
  startEarly(request: ToolRequest): boolean {
    const { state } = this;
    if (this.early.has(request.toolCallId) || state.control.blockReason(request.name)) return false;
    const prepared = prepareCall(state.tools(), request);
    if (prepared.type !== 'dispatch' || !prepared.tool.startEarly || this.needsConfirmation(prepared.tool, prepared.args)) return false;
    state.emit({ type: 'tool_call', turn: request.turn, toolCallId: request.toolCallId, name: request.name, args: request.args, early: true });
    const scope = new CancellationScope();
    const promise = scope.run(() => executeCall(this.dispatchContext(prepared.tool), prepared));
    this.early.set(request.toolCallId, { request, scope, promise });
    return true;
  }

  /** Cancels every early call (a kill): they are answered by {@link discardEarly}. */
  cancelEarly(): void {
    for (const call of this.early.values()) call.scope.cancel();
  }

  /** Cancels and waits for the early calls no plan claimed, and logs them as discarded. */
  async discardEarly(reason: string): Promise<void> {
    this.orphans.push(...this.early.values());
    this.early.clear();
    await this.settleOrphans(reason);
  }

  private async settleOrphans(reason: string): Promise<void> {
    const orphans = this.orphans;
    this.orphans = [];
    for (const call of orphans) call.scope.cancel();
    for (const call of orphans) {
      const output = await call.promise;
      const { request } = call;
      const detail = output.status === 'cancelled' ? reason : `${reason} (it had already ended: ${output.status})`;
      this.state.emit({ type: 'early_call_discarded', turn: request.turn, toolCallId: request.toolCallId, name: request.name, reason: detail });
    }
  }

  constructor(
    private readonly state: RunState,
    private readonly turns: ToolTurns,
    private readonly host: CallRunnerHost,
  ) {}

  /**
   * Runs a turn's calls; their outputs, in call order and already in the transcript, go through
   * `then` in the step that ends the turn, not in a step of its own.
   */
  runTurn(requests: readonly ToolRequest[], then: (outputs: ToolOutput[]) => ToolOutput[] | Promise<ToolOutput[]>): Promise<ToolOutput[]> {
    const { state } = this;
    // Early calls the plan does not contain stop now; the turn's calls claim the others.
    for (const [id, call] of this.early) {
      if (requests.some((r) => sameCall(r, call.request))) continue;
      this.early.delete(id);
      this.orphans.push(call);
      call.scope.cancel();
    }
    const allowed = Math.max(0, state.policy.maxToolCalls - state.usage.toolCalls);
    this.openRequests = requests;
    this.started.clear();
    const commit = (outputs: ToolOutput[]): ToolOutput[] | Promise<ToolOutput[]> => {
      this.openRequests = undefined;
      this.carried = undefined;
      // Results enter the transcript in call order, whatever order they finished in.
      state.commit(outputs);
      return this.orphans.length ? this.settleOrphans('the final answer has no such call').then(() => outputs) : outputs;
    };
    const host: ToolTurnHost = {
      parallel: state.policy.parallelToolCalls,
      turns: this.turns,
      runCall: (request, index, graph) => this.runCall(request, index < allowed, graph),
      reportCall: (request, index, report) => this.reportCall(request, index < allowed, report),
      closeCall: (request, type, message, hint) => state.record(closedOutput(request, type, message, hint)),
      writtenOutput: (path) => state.outputs.get(path),
      writeOutput: (path, output) => state.writeOutput(path, output),
    };
    return runToolTurn(requests, host, (outputs) => {
      const committed = commit(outputs);
      return isPending(committed) ? committed.then(then) : then(committed);
    });
  }

  /** True while an activity, a child run or an early call of the turn is in flight. */
  get busy(): boolean {
    return this.dispatched > 0 || this.early.size > 0 || this.orphans.length > 0;
  }

  /**
   * The turn in progress as the next execution can take it over, when nothing of it is in flight:
   * every call has ended, waits for its decision, or has not begun; at least one waits. Undefined
   * otherwise, and for turns with output paths (their alternatives' race is not carried).
   */
  openTurnAtRest(): CarriedToolTurn | undefined {
    const { state } = this;
    const requests = this.openRequests;
    if (!requests || this.busy) return undefined;
    if (requests.some((r) => r.outputPath !== undefined)) return undefined;
    const ended: ToolOutput[] = [];
    const waiting: CarriedToolTurn['waiting'] = [];
    for (const r of requests) {
      const output = state.turnOutputs.get(r.toolCallId);
      const approval = state.human.approvals.get(r.toolCallId);
      if (output) ended.push(output);
      else if (approval && !approval.decision) waiting.push({ request: approval.request, requestedAt: approval.requestedAt });
      else if (this.started.has(r.toolCallId)) return undefined;
    }
    return waiting.length > 0 ? { kind: 'tool_calls', requests: [...requests], ended, waiting } : undefined;
  }

  /**
   * Goes on with a turn the previous execution stopped in ({@link openTurnAtRest}): calls that had
   * ended give their recorded output again, calls that waited wait again for their decision (they
   * are not asked again), calls that had not begun run as they would have.
   */
  resumeTurn(open: CarriedToolTurn, then: (outputs: ToolOutput[]) => ToolOutput[] | Promise<ToolOutput[]>): Promise<ToolOutput[]> {
    // Its outputs, approvals and planned calls are back already (human/carried-waits.ts).
    this.state.refreshStatus();
    this.carried = { ended: new Map(open.ended.map((o) => [o.toolCallId, o])), waiting: new Map(open.waiting.map((w) => [w.request.toolCallId, w.request])) };
    return this.runTurn(open.requests, then);
  }

  /**
   * Runs one call: the before_tool safe point, operator edits and drops, blocks, validation,
   * confirmation, the concurrency limit, then the activity (or child run).
   *
   * Written as steps rather than one async function. Most calls never wait before their
   * activity: those return the activity's promise with a `then`, one promise instead of an async
   * function's two (each costs the SDK's promise hook a stack capture). A call that does wait
   * (a pending safe point, a confirmation, a pause, a free slot) continues in an async function
   * that awaits exactly where the old one did (see call-steps.ts). Either way every step runs in the same
   * microtask as before, so the commands of concurrent calls keep their order in history.
   */
  private runCall(planned: ToolRequest, withinCap: boolean, graph?: GraphCallOptions): Promise<ToolOutput> {
    let step: CallStep;
    try {
      const finish = (output: ToolOutput): ToolOutput => this.state.record(graph ? graph.settle(output) : output);
      step = this.callStart({ request: planned, graph, finish }, withinCap);
    } catch (err) {
      return Promise.reject(err);
    }
    return settleSteps(step);
  }

  /** {@link runCall} for a call that reports its end (see ToolTurnHost.reportCall); never part of a dependency-aware plan. */
  private reportCall(planned: ToolRequest, withinCap: boolean, report: CallReport): Promise<ToolOutput> | undefined {
    const call: CallInFlight = { request: planned, graph: undefined, finish: (output) => this.state.record(output), report };
    let step: CallStep;
    try {
      step = this.callStart(call, withinCap);
    } catch (err) {
      return Promise.reject(err);
    } finally {
      // A step reached after a wait settles through the call's promise.
      call.report = undefined;
    }
    if ('output' in step) {
      report.done(step.output);
      return undefined;
    }
    return call.reported ? undefined : settleSteps(step);
  }

  private callStart(call: CallInFlight, withinCap: boolean): CallStep {
    const { state } = this;
    const planned = call.request;
    this.started.add(planned.toolCallId);
    const carried = this.carried;
    if (carried) {
      // Recorded by the previous execution: its events and session changes are there already.
      const output = carried.ended.get(planned.toolCallId);
      if (output) return { output };
      const waiting = carried.waiting.get(planned.toolCallId);
      if (waiting) return this.waitingAgain({ ...call, request: waiting });
    }
    const early = this.early.get(planned.toolCallId);
    if (early && sameCall(early.request, planned)) {
      // Started while the model still answered: the plan claims it as it is.
      this.early.delete(planned.toolCallId);
      state.pending.set(planned.toolCallId, { request: planned, dispatched: true });
      return waitOn(early.promise, (output) => ({ output: call.finish(output) }), rethrow, true);
    }
    if (!withinCap) return { output: state.record(closedOutput(planned, 'tool_cap', `not run: the tool-call cap of ${state.policy.maxToolCalls} is reached`)) };
    const ended = this.endedBeforeDispatchStep(call);
    const act = (action: HookAction | undefined): CallStep => {
      let closed: CallStep | undefined;
      try {
        if (action?.type === 'block') closed = { output: call.finish(closedOutput(call.request, 'rejected', `blocked by agent hook: ${action.reason}`)) };
        else if (action?.type === 'edit_args') call.request = { ...call.request, args: action.args };
      } catch (err) {
        return ended(err);
      }
      return closed ?? this.callChecked(call);
    };
    let atSafePoint: Promise<HookAction | undefined> | HookAction | undefined;
    try {
      atSafePoint = this.host.checkpoint('before_tool', { point: 'before_tool', turn: state.turn, call: call.request }, call.request.name);
    } catch (err) {
      return ended(err);
    }
    return isPending(atSafePoint) ? waitOn(atSafePoint, act, ended) : act(atSafePoint);
  }

  /**
   * The `catch` of a wait before dispatch: a kill or cancellation answers the call as ended before
   * dispatch (the request as it stands then); anything else is rethrown.
   */
  private endedBeforeDispatchStep(call: CallInFlight): (err: unknown) => CallStep {
    return (err) => {
      if (err instanceof RunTerminated || isCancellation(err)) return { output: call.finish(endedBeforeDispatch(call.request, this.turns.cancelHint)) };
      throw err;
    };
  }

  /** After the safe point: operator modifications, blocks, validation, then confirmation if needed. */
  private callChecked(call: CallInFlight): CallStep {
    const { state } = this;
    const modified = this.applyCallModifications(call.request);
    if (modified.type === 'closed') return { output: call.finish(modified.output) };
    call.request = modified.request;
    const blocked = state.control.blockReason(call.request.name);
    if (blocked) {
      return { output: call.finish(closedOutput(call.request, 'rejected', `tool ${call.request.name} is blocked: ${blocked}`, { reason: 'tool_unavailable', tool: call.request.name, message: blocked })) };
    }
    const prepared = prepareCall(state.tools(), call.request);
    // Only calls that are ready to run (valid, not blocked) are presented for confirmation.
    if (prepared.type === 'dispatch' && this.needsConfirmation(prepared.tool, prepared.args)) {
      // The turn was cancelled (time budget) before this call's turn came: no approval can matter now.
      if (CancellationScope.current().consideredCancelled) {
        return { output: call.finish(closedOutput(call.request, 'cancelled', 'not run: its turn was cancelled before this call was dispatched', this.turns.cancelHint)) };
      }
      return this.confirmed(call, prepared, false);
    }
    return this.callConfirmed(call, prepared);
  }

  /** A call that waited for its decision when the previous execution continued as new: it waits on, not asked again. */
  private waitingAgain(call: CallInFlight): CallStep {
    const prepared = prepareCall(this.state.tools(), call.request);
    if (prepared.type !== 'dispatch') {
      this.state.human.approvals.delete(call.request.toolCallId);
      return this.callConfirmed(call, prepared);
    }
    return this.confirmed(call, prepared, true);
  }

  /** Waits for a human's decision on the call (asked now, or `asked` before), then goes on as decided. */
  private confirmed(call: CallInFlight, prepared: Extract<PreparedCall, { type: 'dispatch' }>, asked: boolean): CallStep {
    const { graph } = call;
    const unconfirmed = (err: unknown): CallStep => {
      // In a dependency-aware plan the turn cancels a call whose alternative won, also while it waits for a human.
      if (!graph || !isCancellation(err)) throw err;
      return { output: call.finish(closedOutput(call.request, 'cancelled', graph.cancelMessage() ?? 'the call was cancelled while it waited for confirmation', this.turns.cancelHint)) };
    };
    let decision: Promise<PreparedCall>;
    try {
      decision = this.confirm(prepared, asked);
    } catch (err) {
      return unconfirmed(err);
    }
    return waitOn(decision, (confirmed) => this.callConfirmed(call, confirmed), unconfirmed);
  }

  /** A confirmed (or unconfirmed-needed) call: refused, or held while paused, then dispatched. */
  private callConfirmed(call: CallInFlight, prepared: PreparedCall): CallStep {
    const { state } = this;
    if (prepared.type === 'refused') {
      const error = prepared.output.error?.type;
      if (error === 'invalid_arguments' || error === 'tool_unknown') {
        state.emit({ type: 'tool_call', turn: call.request.turn, toolCallId: call.request.toolCallId, name: prepared.output.name, args: prepared.output.args });
      }
      return { output: call.finish(prepared.output) };
    }
    call.request = prepared.request;
    // A call approved while the run is paused (or pausing) starts only after resume.
    if (state.control.isPauseRequested) {
      const ended = this.endedBeforeDispatchStep(call);
      let held: Promise<void>;
      try {
        held = this.host.holdWhilePaused();
      } catch (err) {
        return ended(err);
      }
      return waitOn(held, () => this.callWithinLimit(call, prepared), ended);
    }
    return this.callWithinLimit(call, prepared);
  }

  /** Waits for a free slot when the policy limits concurrent calls, then dispatches. */
  private callWithinLimit(call: CallInFlight, prepared: Extract<PreparedCall, { type: 'dispatch' }>): CallStep {
    const limit = this.state.policy.maxConcurrentToolCalls;
    if (limit === undefined) return this.dispatch(call, prepared);
    const cancelled = (err: unknown): CallStep => {
      if (!isCancellation(err)) throw err;
      return { output: call.finish(closedOutput(call.request, 'cancelled', call.graph?.cancelMessage() ?? 'the call was cancelled while it waited to be dispatched', this.turns.cancelHint)) };
    };
    // Every waiter wakes when a slot frees: each checks again, so only one takes it.
    const next = (): CallStep => {
      if (this.dispatched < limit) return this.dispatch(call, prepared);
      let freed: Promise<void>;
      try {
        freed = condition(() => this.dispatched < limit);
      } catch (err) {
        return cancelled(err);
      }
      return waitOn(freed, next, cancelled);
    };
    return next();
  }

  /** Starts the call's activity (or child run); its output is the call's last step. */
  private dispatch(call: CallInFlight, prepared: Extract<PreparedCall, { type: 'dispatch' }>): CallStep {
    const { state } = this;
    const { request } = call;
    state.emit({ type: 'tool_call', turn: request.turn, toolCallId: request.toolCallId, name: request.name, args: request.args });
    state.pending.set(request.toolCallId, { request, dispatched: true });
    this.dispatched += 1;
    if (!prepared.tool.subAgent) return this.settledInActivityStep(call, prepared);
    let running: Promise<ToolOutput>;
    try {
      running = executeSubAgent(this.subAgentHost(), request, prepared.tool, prepared.args);
    } catch (err) {
      this.dispatched -= 1;
      throw err;
    }
    return waitOn(
      running,
      (output) => {
        try {
          return { output: call.finish(output) };
        } finally {
          this.dispatched -= 1;
        }
      },
      (err) => {
        this.dispatched -= 1;
        throw err;
      },
      true,
    );
  }

  /**
   * The last step of a dispatched tool call: the activity's own step records the output and
   * frees the slot, so the step's promise is the call's output as it is.
   */
  private settledInActivityStep(call: CallInFlight, prepared: Extract<PreparedCall, { type: 'dispatch' }>): CallStep {
    const { report } = call;
    let recorded = false;
    const settle = (output: ToolOutput): ToolOutput => {
      recorded = true;
      let finished: ToolOutput;
      try {
        finished = call.finish(output);
      } catch (err) {
        if (!report) throw err;
        // Nothing reacts to a reported call's promise: it must not reject.
        report.fail(err);
        return output;
      } finally {
        this.dispatched -= 1;
      }
      report?.done(finished);
      return finished;
    };
    const free = (): void => {
      if (!recorded) this.dispatched -= 1;
    };
    let running: Promise<ToolOutput>;
    try {
      // Built per call: sequential calls see session changes of the calls before them.
      running = executeCall(this.dispatchContext(prepared.tool, call.graph?.dependencies), prepared, {
        cancelHint: () => this.turns.cancelHint,
        cancelMessage: call.graph?.cancelMessage,
        settle,
        report,
      });
    } catch (err) {
      free();
      throw err;
    }
    if (report) call.reported = true;
    const failed = (err: unknown): never => {
      free();
      throw err;
    };
    return { ...waitOn(running, (output) => ({ output: output as ToolOutput }), failed, true), settled: true };
  }

  /** Applies queued edit / drop modifications addressed to this call. */
  private applyCallModifications(request: ToolRequest): { type: 'run'; request: ToolRequest } | { type: 'closed'; output: ToolOutput } {
    const { state } = this;
    let current = request;
    for (const { id, intervention } of state.control.take((q) => 'toolCallId' in q.intervention && q.intervention.toolCallId === request.toolCallId)) {
      if (intervention.kind === 'drop_call') {
        state.emit({ type: 'intervention_applied', id, source: 'operator', kind: 'drop_call', point: 'before_tool', detail: `dropped ${request.toolCallId}: ${intervention.reason}` });
        return { type: 'closed', output: closedOutput(current, 'rejected', `dropped by operator: ${intervention.reason}`) };
      }
      if (intervention.kind === 'edit_call') {
        const check = state.tools().find((t) => t.name === current.name)?.input.safeParse(intervention.args);
        if (check && !check.success) {
          state.emit({ type: 'intervention_rejected', id, kind: 'edit_call', reason: `edited arguments do not match ${current.name}: ${describeIssues(check.error)}` });
          continue;
        }
        const detail = `${request.toolCallId} args ${JSON.stringify(current.args)} -> ${JSON.stringify(intervention.args)}`;
        state.emit({ type: 'intervention_applied', id, source: 'operator', kind: 'edit_call', point: 'before_tool', detail });
        current = { ...current, args: intervention.args };
      }
    }
    return { type: 'run', request: current };
  }

  private needsConfirmation(tool: ToolDefinition, args: unknown): boolean {
    const policy = this.state.input.confirmation;
    if (policy?.exempt?.includes(tool.name) || this.state.human.alwaysApproved.has(tool.name)) return false;
    if (policy?.all || policy?.tools?.includes(tool.name)) return true;
    const flag = tool.requiresConfirmation;
    if (typeof flag !== 'function') return flag;
    try {
      return flag(args);
    } catch (err) {
      // A bug in agent code: retrying the workflow task would fail the same way forever.
      const message = err instanceof Error ? err.message : String(err);
      throw rejection(`agent ${this.state.agent.name}: requiresConfirmation of tool ${tool.name} threw: ${message}`, 'hook_failed');
    }
  }

  /**
   * Waits for a human decision on a call and applies it: the call to dispatch, or the
   * output that closes it (rejected, or cancelled by a kill).
   */
  private async confirm(prepared: Extract<PreparedCall, { type: 'dispatch' }>, asked = false): Promise<PreparedCall> {
    const { state } = this;
    const { request } = prepared;
    if (!asked) {
      state.human.requestApproval(request);
      state.emit({ type: 'approval_requested', turn: request.turn, toolCallId: request.toolCallId, name: request.name, args: request.args });
    }
    state.refreshStatus();
    let decided = false;
    try {
      decided = await this.host.waitFor(() => state.human.approvals.get(request.toolCallId)?.decision !== undefined);
    } finally {
      if (!decided) state.human.approvals.delete(request.toolCallId);
      state.refreshStatus();
    }
    const decision = state.human.takeDecision(request.toolCallId);
    state.refreshStatus();
    if (!decided || !decision) return { type: 'refused', output: closedOutput(request, 'cancelled', 'the run ended while this call waited for confirmation') };
    const base = { toolCallId: request.toolCallId, ...(decision.by ? { by: decision.by } : {}) };
    switch (decision.decision) {
      case 'approve':
        state.emit({ type: 'approval_decided', ...base, decision: 'approve', always: decision.always });
        return prepared;
      case 'reject':
        state.emit({ type: 'approval_decided', ...base, decision: 'reject', reason: decision.reason });
        return { type: 'refused', output: closedOutput(request, 'rejected', `rejected by a human: ${decision.reason}`) };
      case 'edit':
      case 'replace': {
        const updated = { name: decision.decision === 'replace' ? decision.name : request.name, args: decision.args };
        state.emit({ type: 'approval_decided', ...base, decision: decision.decision, original: { name: request.name, args: request.args }, updated });
        return prepareCall(state.tools(), { ...request, ...updated });
      }
    }
  }

  private subAgentHost(): SubAgentHost {
    const { state } = this;
    return {
      workflowId: workflowInfo().workflowId,
      epoch: state.log.epoch ?? workflowInfo().runId,
      path: state.input.parent?.path ?? [],
      breakpoints: state.control.breakpointList,
      resultByteBudget: state.policy.toolResultByteBudget,
      policy: state.policy,
      usage: state.usage,
      remainingTimeMs: () => state.policy.timeBudgetMs - state.elapsedMs(),
      started: (child) => {
        state.children.set(child.toolCallId, child);
        state.emit({ type: 'child_started', turn: child.turn, toolCallId: child.toolCallId, workflowId: child.workflowId, agent: child.agent });
        // Paused while the child was starting: the pause reaches it now.
        if (state.control.isPauseRequested) {
          getExternalWorkflowHandle(child.workflowId).signal(pauseSignal, { reason: `parent paused: ${state.control.pauseReason ?? ''}` }).catch(() => undefined);
        }
      },
      ended: (child, usage) => {
        state.children.set(child.toolCallId, child);
        if (state.childWaits.ended(child.toolCallId)) state.refreshStatus();
        state.usage = withChildUsage(state.usage, usage);
        state.emit({ type: 'child_ended', toolCallId: child.toolCallId, workflowId: child.workflowId, status: child.status === 'completed' || child.status === 'terminated' ? child.status : 'failed' });
      },
    };
  }

  private dispatchContext(tool: ToolDefinition, dependencies?: readonly DependencyOutput[]): DispatchContext {
    const { state } = this;
    const keys = tool.sessionKeys;
    const sessionState = keys ? Object.fromEntries(keys.filter((k) => k in state.sessionState).map((k) => [k, state.sessionState[k] as JsonValue])) : { ...state.sessionState };
    const info = workflowInfo();
    return {
      workflowId: info.workflowId,
      runId: info.runId,
      ...(state.log.epoch ? { epoch: state.log.epoch } : {}),
      agent: state.agent.name,
      ...(state.input.sessionId ? { sessionId: state.input.sessionId } : {}),
      resultByteBudget: state.policy.toolResultByteBudget,
      sessionState,
      compactInput: this.host.compactToolInputs,
      ...(keys ? { sessionKeys: keys } : {}),
      ...(dependencies?.length ? { dependencies } : {}),
      ...(tool.mcp ? { onListVersion: (version: string) => state.toolsets.observe(tool.mcp?.toolset ?? '', version) } : {}),
      onCallEnded: state.noteCallEnded,
    };
  }
}
