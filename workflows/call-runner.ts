import { CancellationScope, isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import { describeIssues, type JsonValue, type RetryHint, type ToolDefinition, type ToolOutput, type ToolRequest } from '../contracts';
import type { HookAction, HookEvent } from './agent-hooks';
import { closedOutput } from './outputs';
import { RunTerminated } from './run-terminated';
import { isPending } from './safe-point';
import type { RunState } from './run-state';
import { executeCall, prepareCall, type DispatchContext, type PreparedCall } from './tool-dispatch';
import { runToolTurn } from './tool-turn';
import { rejection } from './failures';
import { cancelledTurnAnswersCalls, pauseHoldsEveryCall } from './patches';

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
  setToolScope(scope: CancellationScope | undefined): void;
  /** Why the current turn's calls were cancelled, if the run cancelled them. */
  cancelHint(): RetryHint | undefined;
}

/**
 * Runs the calls of one tool turn: the before_tool safe point, operator edits and drops,
 * blocks, validation, confirmation by a human, then one activity per call.
 */
export class CallRunner {
  constructor(
    private readonly state: RunState,
    private readonly host: CallRunnerHost,
  ) {}

  /** Runs a turn's calls; returns their outputs in call order, already in the transcript. */
  async runTurn(requests: readonly ToolRequest[]): Promise<ToolOutput[]> {
    const { state } = this;
    const allowed = Math.max(0, state.policy.maxToolCalls - state.usage.toolCalls);
    const outputs = await runToolTurn(requests, {
      parallel: state.policy.parallelToolCalls,
      runCall: (request, index, cancelHint) => this.runCall(request, index < allowed, cancelHint),
      cancelHint: () => this.host.cancelHint(),
      setToolScope: (scope) => this.host.setToolScope(scope),
    });
    // Results enter the transcript in call order, whatever order they finished in.
    state.commit(outputs);
    return outputs;
  }

  private async runCall(planned: ToolRequest, withinCap: boolean, cancelHint: () => RetryHint | undefined): Promise<ToolOutput> {
    const { state } = this;
    if (!withinCap) return state.record(closedOutput(planned, 'tool_cap', `not run: the tool-call cap of ${state.policy.maxToolCalls} is reached`));
    let request = planned;
    try {
      const atSafePoint = this.host.checkpoint('before_tool', { point: 'before_tool', turn: state.turn, call: request }, request.name);
      const action = isPending(atSafePoint) ? await atSafePoint : atSafePoint;
      if (action?.type === 'block') return state.record(closedOutput(request, 'rejected', `blocked by agent hook: ${action.reason}`));
      if (action?.type === 'edit_args') request = { ...request, args: action.args };
    } catch (err) {
      if (err instanceof RunTerminated || isCancellation(err)) return state.record(endedBeforeDispatch(request, cancelHint()));
      throw err;
    }
    const modified = this.applyCallModifications(request);
    if (modified.type === 'closed') return state.record(modified.output);
    request = modified.request;
    const blocked = state.control.blockReason(request.name);
    if (blocked) {
      return state.record(closedOutput(request, 'rejected', `tool ${request.name} is blocked: ${blocked}`, { reason: 'tool_unavailable', tool: request.name, message: blocked }));
    }
    let prepared = prepareCall(state.tools(), request);
    // Only calls that are ready to run (valid, not blocked) are presented for confirmation.
    if (prepared.type === 'dispatch' && this.needsConfirmation(prepared.tool, prepared.args)) {
      // The turn was cancelled (time budget) before this call's turn came: no approval can matter now.
      if (CancellationScope.current().consideredCancelled && patched(cancelledTurnAnswersCalls)) {
        return state.record(closedOutput(request, 'cancelled', 'not run: its turn was cancelled before this call was dispatched', cancelHint()));
      }
      prepared = await this.confirm(prepared);
    }
    if (prepared.type === 'refused') {
      const error = prepared.output.error?.type;
      if (error === 'invalid_arguments' || error === 'tool_unknown') {
        state.emit({ type: 'tool_call', turn: request.turn, toolCallId: request.toolCallId, name: prepared.output.name, args: prepared.output.args });
      }
      return state.record(prepared.output);
    }
    request = prepared.request;
    // A call approved while the run is paused (or pausing) starts only after resume.
    if (state.control.isPauseRequested && patched(pauseHoldsEveryCall)) {
      try {
        await this.host.holdWhilePaused();
      } catch (err) {
        if (err instanceof RunTerminated || isCancellation(err)) return state.record(endedBeforeDispatch(request, cancelHint()));
        throw err;
      }
    }
    state.emit({ type: 'tool_call', turn: request.turn, toolCallId: request.toolCallId, name: request.name, args: request.args });
    state.pending.set(request.toolCallId, { request, dispatched: true });
    // Built per call: sequential calls see session changes of the calls before them.
    return state.record(await executeCall(this.dispatchContext(prepared.tool), prepared, cancelHint));
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
  private async confirm(prepared: Extract<PreparedCall, { type: 'dispatch' }>): Promise<PreparedCall> {
    const { state } = this;
    const { request } = prepared;
    state.human.requestApproval(request);
    state.emit({ type: 'approval_requested', turn: request.turn, toolCallId: request.toolCallId, name: request.name, args: request.args });
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

  private dispatchContext(tool: ToolDefinition): DispatchContext {
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
      ...(keys ? { sessionKeys: keys } : {}),
      ...(tool.mcp ? { onListVersion: (version: string) => state.toolsets.observe(tool.mcp?.toolset ?? '', version) } : {}),
    };
  }
}
