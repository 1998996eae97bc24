import { CancellationScope } from '@temporalio/workflow';
import type { ToolOutput, ToolRequest } from '../../contracts/tools';
import type { CarriedOpenTurn } from '../../contracts/carried-state';
import { needsConfirmation } from './call-rules';
import { isPending } from '../state/safe-point';
import type { CallsRun } from './calls-run';
import { CallDispatch } from './call-dispatch';
import { EarlyCalls } from './early-calls';
import { executeCall } from './tool-dispatch';
import type { TurnDriverHost, TurnParts } from './call-driver';
import { driveTurn } from './turn-driver';
import { newTurn, type CarriedCalls, type ToolTurnState, type TurnFacts } from './turn-machine';
import type { ToolTurns } from './tool-turns';

/** What running calls needs from the loop. */
export interface CallRunnerHost extends TurnDriverHost {
  /** Tool activities get compact inputs (see AgentWorkflowsOptions.compactToolInputs). */
  readonly compactToolInputs: boolean;
}

/** A tool turn carried across continue-as-new (see {@link CallRunner.openTurnAtRest}). */
export type CarriedToolTurn = Extract<CarriedOpenTurn, { kind: 'tool_calls' }>;

/**
 * The run's tool turns: each is a turn machine (turn-machine.ts) its driver runs
 * (turn-driver.ts); this keeps the turn in progress, commits its outputs, and says what of it a
 * continuation can carry. Calls started while the model still answered are early-calls.ts.
 */
export class CallRunner {
  /** The turn in progress. */
  private current: ToolTurnState | undefined;
  /** Calls started while the model still answers (early dispatch). */
  readonly early: EarlyCalls;
  private readonly parts: TurnParts;

  constructor(
    private readonly state: CallsRun,
    turns: ToolTurns,
    host: CallRunnerHost,
  ) {
    const dispatch = new CallDispatch(state, turns, host.compactToolInputs);
    const facts = runFacts(state, turns, dispatch);
    this.early = new EarlyCalls(state, {
      needsConfirmation: (prepared) => needsConfirmation(prepared.tool, prepared.args, facts.confirmation),
      execute: (prepared) => executeCall(dispatch.context(prepared.tool), prepared),
    });
    this.parts = { state, turns, host, dispatch, early: this.early, facts };
  }

  /**
   * Runs a turn's calls; their outputs, in call order and already in the transcript, go through
   * `then` in the step that ends the turn, not in a step of its own.
   */
  runTurn(requests: readonly ToolRequest[], then: (outputs: ToolOutput[]) => ToolOutput[] | Promise<ToolOutput[]>, carried?: CarriedCalls): Promise<ToolOutput[]> {
    const { state } = this;
    // Early calls the plan does not contain stop now; the turn's calls claim the others.
    this.early.stopUnclaimed(requests);
    const allowed = Math.max(0, state.policy.maxToolCalls - state.usage.toolCalls);
    const turn = newTurn(requests, { parallel: state.policy.parallelToolCalls, allowed, ...(carried ? { carried } : {}) });
    this.current = turn;
    return driveTurn(turn, this.parts, (outputs) => {
      this.current = undefined;
      // Results enter the transcript in call order, whatever order they finished in.
      state.commit(outputs);
      const settling = this.early.settleUnclaimed();
      const committed = settling ? settling.then(() => outputs) : outputs;
      return isPending(committed) ? committed.then(then) : then(committed);
    });
  }

  /** True while an activity, a child run or an early call of the turn is in flight. */
  get busy(): boolean {
    return this.parts.dispatch.busy || this.early.busy;
  }

  /**
   * The turn in progress as the next execution can take it over, when nothing of it is in flight:
   * every call has ended, waits for its decision, or has not begun; at least one waits. Undefined
   * otherwise, and for turns with output paths (their alternatives' race is not carried).
   */
  openTurnAtRest(): CarriedToolTurn | undefined {
    const { state } = this;
    const turn = this.current;
    if (!turn || this.busy) return undefined;
    if (turn.rows.some((r) => r.planned.outputPath !== undefined)) return undefined;
    const ended: ToolOutput[] = [];
    const waiting: CarriedToolTurn['waiting'] = [];
    for (const row of turn.rows) {
      const id = row.planned.toolCallId;
      const output = state.turnOutputs.get(id);
      const approval = state.human.approvals.get(id);
      if (output) ended.push(output);
      else if (approval && !approval.decision) waiting.push({ request: approval.request, requestedAt: approval.requestedAt });
      else if (row.phase !== 'planned') return undefined;
    }
    return waiting.length > 0 ? { kind: 'tool_calls', requests: turn.rows.map((r) => r.planned), ended, waiting } : undefined;
  }

  /**
   * Goes on with a turn the previous execution stopped in ({@link openTurnAtRest}): calls that had
   * ended give their recorded output again, calls that waited wait again for their decision (they
   * are not asked again), calls that had not begun run as they would have.
   */
  resumeTurn(open: CarriedToolTurn, then: (outputs: ToolOutput[]) => ToolOutput[] | Promise<ToolOutput[]>): Promise<ToolOutput[]> {
    // Its outputs, approvals and planned calls are back already (human/carried-waits.ts).
    this.state.refreshStatus();
    const carried: CarriedCalls = { ended: new Map(open.ended.map((o) => [o.toolCallId, o])), waiting: new Map(open.waiting.map((w) => [w.request.toolCallId, w.request])) };
    return this.runTurn(open.requests, then, carried);
  }
}

/** The run as the turn machine reads it: live views of the run's state, read at each step. */
function runFacts(state: CallsRun, turns: ToolTurns, dispatch: CallDispatch): TurnFacts {
  return {
    get turn() {
      return state.turn;
    },
    get tools() {
      return state.tools();
    },
    blockReason: (tool) => state.control.blockReason(tool),
    get confirmation() {
      return { confirmation: state.input.confirmation, alwaysApproved: state.human.alwaysApproved, agent: state.agent.name, ...(state.input.sessionId !== undefined ? { sessionId: state.input.sessionId } : {}) };
    },
    get pauseRequested() {
      return state.control.isPauseRequested;
    },
    get turnCancelled() {
      return CancellationScope.current().consideredCancelled;
    },
    get cancelHint() {
      return turns.cancelHint;
    },
    get maxToolCalls() {
      return state.policy.maxToolCalls;
    },
    get concurrencyLimit() {
      return state.policy.maxConcurrentToolCalls;
    },
    get inFlight() {
      return dispatch.inFlight;
    },
  };
}
