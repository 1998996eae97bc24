import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { ToolOutput, ToolRequest } from '../../contracts/tools';
import type { CarriedOpenTurn } from '../../contracts/carried-state';
import type { ToolDefinition } from '../../contracts/tool-definition';
import type { HookAction, HookEvent } from '../agents/agent-hooks';
import { closedOutput } from '../kernel/outputs';
import { isPending } from '../state/safe-point';
import type { RunState } from '../state/run-state';
import { decidedCall, modifiedCall, needsConfirmation, prepareCall, type ModifiedCall, type PreparedCall } from './call-rules';
import { endsBeforeDispatch, type CallInFlight, type DispatchableCall } from './call-in-flight';
import { CallDispatch } from './call-dispatch';
import { EarlyCalls } from './early-calls';
import { executeCall } from './tool-dispatch';
import { runToolTurn, type CallReport, type GraphCallOptions, type ToolTurnHost } from './tool-turn';
import { rethrow, settleSteps, waitOn, type CallStep } from './call-steps';
import type { ToolTurns } from './tool-turns';

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

/** A tool turn carried across continue-as-new (see {@link CallRunner.openTurnAtRest}). */
export type CarriedToolTurn = Extract<CarriedOpenTurn, { kind: 'tool_calls' }>;

/**
 * Runs the calls of one tool turn, each through its steps: the before_tool safe point, operator
 * edits and drops, blocks, validation, confirmation by a human, a pause hold, then its slot and
 * activity (call-dispatch.ts). The rules of each step are plain functions (call-rules.ts); calls
 * started while the model still answered are early-calls.ts.
 */
export class CallRunner {
  /** The calls of the turn in progress, and those of them that have begun their steps. */
  private openRequests: readonly ToolRequest[] | undefined;
  private readonly started = new Set<string>();
  /** In a turn carried from the previous execution: the calls that had ended, and those that waited for a decision. */
  private carried: { readonly ended: ReadonlyMap<string, ToolOutput>; readonly waiting: ReadonlyMap<string, ToolRequest> } | undefined;
  /** Calls started while the model still answers (early dispatch). */
  readonly early: EarlyCalls;
  private readonly dispatch: CallDispatch;

  constructor(
    private readonly state: RunState,
    private readonly turns: ToolTurns,
    private readonly host: CallRunnerHost,
  ) {
    this.dispatch = new CallDispatch(state, turns, host.compactToolInputs);
    this.early = new EarlyCalls(state, {
      needsConfirmation: (prepared) => this.needsConfirmation(prepared.tool, prepared.args),
      execute: (prepared) => executeCall(this.dispatch.context(prepared.tool), prepared),
    });
  }

  /**
   * Runs a turn's calls; their outputs, in call order and already in the transcript, go through
   * `then` in the step that ends the turn, not in a step of its own.
   */
  runTurn(requests: readonly ToolRequest[], then: (outputs: ToolOutput[]) => ToolOutput[] | Promise<ToolOutput[]>): Promise<ToolOutput[]> {
    const { state } = this;
    // Early calls the plan does not contain stop now; the turn's calls claim the others.
    this.early.stopUnclaimed(requests);
    const allowed = Math.max(0, state.policy.maxToolCalls - state.usage.toolCalls);
    this.openRequests = requests;
    this.started.clear();
    const commit = (outputs: ToolOutput[]): ToolOutput[] | Promise<ToolOutput[]> => {
      this.openRequests = undefined;
      this.carried = undefined;
      // Results enter the transcript in call order, whatever order they finished in.
      state.commit(outputs);
      const settling = this.early.settleUnclaimed();
      return settling ? settling.then(() => outputs) : outputs;
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
    return this.dispatch.busy || this.early.busy;
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
    const early = this.early.claim(planned);
    if (early) {
      // Started while the model still answered: the plan claims it as it is.
      state.pending.set(planned.toolCallId, { request: planned, dispatched: true });
      return waitOn(early.promise, (output) => ({ output: call.finish(output) }), rethrow, true);
    }
    if (!withinCap) return { output: state.record(closedOutput(planned, 'tool_cap', `not run: the tool-call cap of ${state.policy.maxToolCalls} is reached`)) };
    const ended = endsBeforeDispatch(call, () => this.turns.cancelHint);
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
  private confirmed(call: CallInFlight, prepared: DispatchableCall, asked: boolean): CallStep {
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
      const ended = endsBeforeDispatch(call, () => this.turns.cancelHint);
      let held: Promise<void>;
      try {
        held = this.host.holdWhilePaused();
      } catch (err) {
        return ended(err);
      }
      return waitOn(held, () => this.dispatch.whenSlotFree(call, prepared), ended);
    }
    return this.dispatch.whenSlotFree(call, prepared);
  }

  /** Applies queued edit / drop modifications addressed to this call (see modifiedCall). */
  private applyCallModifications(request: ToolRequest): ModifiedCall['outcome'] {
    const { state } = this;
    const queued = state.control.take((q) => 'toolCallId' in q.intervention && q.intervention.toolCallId === request.toolCallId);
    const modified = modifiedCall(request, queued, state.tools());
    for (const event of modified.events) state.emit(event);
    return modified.outcome;
  }

  private needsConfirmation(tool: ToolDefinition, args: unknown): boolean {
    const { state } = this;
    return needsConfirmation(tool, args, { confirmation: state.input.confirmation, alwaysApproved: state.human.alwaysApproved, agent: state.agent.name });
  }

  /**
   * Waits for a human decision on a call and applies it: the call to dispatch, or the
   * output that closes it (rejected, or cancelled by a kill).
   */
  private async confirm(prepared: DispatchableCall, asked = false): Promise<PreparedCall> {
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
    const outcome = decidedCall(prepared, decision, state.tools());
    state.emit(outcome.event);
    return outcome.next;
  }
}
