import { condition, getExternalWorkflowHandle, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { JsonValue } from '../../contracts/json';
import { pauseSignal } from '../../contracts/definitions';
import type { DependencyOutput, ToolOutput } from '../../contracts/tools';
import type { ToolDefinition } from '../../contracts/tool-definition';
import { closedOutput } from '../kernel/outputs';
import type { RunState } from '../state/run-state';
import type { CallInFlight, DispatchableCall } from './call-in-flight';
import { waitOn, type CallStep } from './call-steps';
import { executeSubAgent, withChildUsage, type SubAgentHost } from './sub-agent';
import { executeCall, type DispatchContext } from './tool-dispatch';
import type { ToolTurns } from './tool-turns';

/**
 * The last steps of a call: a slot under the policy's concurrency limit, then its activity (or
 * child run), and the count of what is in flight. The activity's own step records the output.
 */
export class CallDispatch {
  /** Tool activities and child runs of the current turn in flight (bounded by the policy's maxConcurrentToolCalls). */
  private dispatched = 0;

  constructor(
    private readonly state: RunState,
    private readonly turns: ToolTurns,
    private readonly compactToolInputs: boolean,
  ) {}

  /** True while an activity or a child run of the turn is in flight. */
  get busy(): boolean {
    return this.dispatched > 0;
  }

  /** Waits for a free slot when the policy limits concurrent calls, then dispatches. */
  whenSlotFree(call: CallInFlight, prepared: DispatchableCall): CallStep {
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
  private dispatch(call: CallInFlight, prepared: DispatchableCall): CallStep {
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
  private settledInActivityStep(call: CallInFlight, prepared: DispatchableCall): CallStep {
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
      running = executeCall(this.context(prepared.tool, call.graph?.dependencies), prepared, {
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
      remainingTimeMs: () => state.policy.timeBudgetMs - state.clock.elapsedMs(),
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

  /** What a tool activity of this run receives (built per call: sequential calls see the session changes of the calls before them). */
  context(tool: ToolDefinition, dependencies?: readonly DependencyOutput[]): DispatchContext {
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
      compactInput: this.compactToolInputs,
      ...(keys ? { sessionKeys: keys } : {}),
      ...(dependencies?.length ? { dependencies } : {}),
      ...(tool.mcp ? { onListVersion: (version: string) => state.toolsets.observe(tool.mcp?.toolset ?? '', version) } : {}),
      onCallEnded: state.clock.noteCallEnded,
    };
  }
}
