import { getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import type { JsonValue } from '../../contracts/json';
import { pauseSignal } from '../../contracts/definitions';
import type { DependencyOutput, ToolOutput } from '../../contracts/tools';
import type { ToolDefinition } from '../../contracts/tool-definition';
import type { CallsRun } from './calls-run';
import { cancelMessageOf, settledOutput, type CallRow, type DispatchableCall, type ToolTurnState } from './turn-machine';
import { waitOn, type CallStep } from './call-steps';
import { executeSubAgent, withChildUsage, type SubAgentHost } from './sub-agent';
import { passRulesToChildren } from './child-approval-rules';
import { executeCall, type DispatchContext } from './tool-dispatch';
import type { ToolTurns } from './tool-turns';

/** Where a joined turn's call reports its end from its activity's step (the turn's driver). */
export interface CallReporter {
  /** The call reached its activity in its first step: the activity's step reports its end. */
  willReport(): void;
  reportEnd(row: CallRow, output: ToolOutput): void;
  /** An error in the activity's step: it fails the turn. */
  reportFailure(err: unknown): void;
}

/**
 * The last step of a call: its activity (or child run), and the count of what is in flight. The
 * activity's own step records the output.
 */
export class CallDispatch {
  /** Tool activities and child runs of the current turn in flight (bounded by the policy's maxConcurrentToolCalls). */
  inFlight = 0;

  constructor(
    private readonly state: CallsRun,
    private readonly turns: ToolTurns,
    private readonly compactToolInputs: boolean,
  ) {}

  /** True while an activity or a child run of the turn is in flight. */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  /**
   * Starts the call's activity (or child run); its output is the call's last step. With a
   * `reporter` (a joined turn's call in its first step), the activity's step reports the end.
   */
  dispatch(turn: ToolTurnState, row: CallRow, prepared: DispatchableCall, reporter?: CallReporter): CallStep {
    const { state } = this;
    const { request } = row;
    state.emit({ type: 'tool_call', turn: request.turn, toolCallId: request.toolCallId, name: request.name, args: request.args });
    state.pending.set(request.toolCallId, { request, dispatched: true });
    this.inFlight += 1;
    if (!prepared.tool.subAgent) return this.settledInActivityStep(turn, row, prepared, reporter);
    let running: Promise<ToolOutput>;
    try {
      running = executeSubAgent(this.subAgentHost(), request, prepared.tool, prepared.args);
    } catch (err) {
      this.inFlight -= 1;
      throw err;
    }
    return waitOn(
      running,
      (output) => {
        try {
          return { output: state.record(settledOutput(turn, row, output)) };
        } finally {
          this.inFlight -= 1;
        }
      },
      (err) => {
        this.inFlight -= 1;
        throw err;
      },
      true,
    );
  }

  /**
   * The last step of a dispatched tool call: the activity's own step records the output and
   * frees the slot, so the step's promise is the call's output as it is.
   */
  private settledInActivityStep(turn: ToolTurnState, row: CallRow, prepared: DispatchableCall, reporter: CallReporter | undefined): CallStep {
    const { state } = this;
    let recorded = false;
    const settle = (output: ToolOutput): ToolOutput => {
      recorded = true;
      let finished: ToolOutput;
      try {
        finished = state.record(settledOutput(turn, row, output));
      } catch (err) {
        if (!reporter) throw err;
        // Nothing reacts to a reported call's promise: it must not reject.
        reporter.reportFailure(err);
        return output;
      } finally {
        this.inFlight -= 1;
      }
      reporter?.reportEnd(row, finished);
      return finished;
    };
    const free = (): void => {
      if (!recorded) this.inFlight -= 1;
    };
    let running: Promise<ToolOutput>;
    try {
      // Built per call: sequential calls see session changes of the calls before them.
      running = executeCall(this.context(prepared.tool, row.dependencies), prepared, {
        cancelHint: () => this.turns.cancelHint,
        cancelMessage: turn.schedule ? () => cancelMessageOf(turn, row) : undefined,
        settle,
        ...(reporter ? { fail: (err: unknown) => reporter.reportFailure(err) } : {}),
      });
    } catch (err) {
      free();
      throw err;
    }
    reporter?.willReport();
    const failed = (err: unknown): never => {
      free();
      throw err;
    };
    return { ...waitOn(running, (output) => ({ output: output as ToolOutput }), failed, true), settled: true };
  }

  private subAgentHost(): SubAgentHost {
    const { state } = this;
    const { confirmation } = state.input;
    return {
      workflowId: workflowInfo().workflowId,
      epoch: state.log.epoch ?? workflowInfo().runId,
      path: state.input.parent?.path ?? [],
      tenant: state.input.tenant,
      breakpoints: state.control.breakpointList,
      confirmation,
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
        // Rules changed while the child was starting (it took the ones before): the new ones reach it now.
        const rules = state.input.confirmation?.rules;
        if (state.input.confirmation !== confirmation && rules) passRulesToChildren([child], rules);
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
