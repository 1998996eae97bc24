/**
 * The steps of one call: performs what the turn machine's `stepCall` returns (a safe point, the
 * operators' queue, an approval, a pause hold, a slot, the activity) and feeds what came of it
 * back as the call's next event. Each step is synchronous until it waits (call-steps.ts): a wait's
 * outcome is the next event, in the microtask an `await` would have resumed in.
 */
import { condition, isCancellation } from '@temporalio/workflow';
import type { HookAction } from '../agents/agent-hooks';
import { RunTerminated } from '../kernel/run-terminated';
import { isPending } from '../state/safe-point';
import { sendApprovalNotice } from './approval-notice';
import { countJudgeUsage, judgeCall } from './approval-judging';
import { runContext } from '../kernel/run-context';
import { rethrow, waitOn, type CallStep } from './call-steps';
import type { CallsRun } from './calls-run';
import type { CallDispatch, CallReporter } from './call-dispatch';
import type { EarlyCalls } from './early-calls';
import type { ToolTurns } from './tool-turns';
import { settledOutput, stepCall, type CallAction, type CallEvent, type CallRow, type ToolTurnState, type TurnFacts, type WaitFailure } from './turn-machine';

/** What the driver performs with, besides the run's state. */
export interface TurnDriverHost {
  /** The before_tool safe point; returns a promise only when it has to wait (a pause). */
  checkpoint(point: 'before_tool', event: Extract<CallAction, { type: 'safe_point' }>['event'], tool: string): Promise<HookAction | undefined> | HookAction | undefined;
  /** Waits (cancellably) for `done` or a kill; returns whether `done` holds. */
  waitFor(done: () => boolean): Promise<boolean>;
  /** Waits while a pause is requested (marking the run paused if no branch has); throws RunTerminated on a kill. */
  holdWhilePaused(): Promise<void>;
}

/** The run's parts a turn's driver uses: one set per run, shared by its turns. */
export interface TurnParts {
  readonly state: CallsRun;
  readonly turns: ToolTurns;
  readonly host: TurnDriverHost;
  readonly dispatch: CallDispatch;
  readonly early: EarlyCalls;
  readonly facts: TurnFacts;
}

function failureOf(err: unknown): WaitFailure {
  return err instanceof RunTerminated ? 'terminated' : isCancellation(err) ? 'cancelled' : 'other';
}

/** Performs one turn's calls, step by step (one per turn: it reads the turn's rows). */
export class CallDriver {
  /** The call in its first step in a joined turn, which reports its end to `reporter` if it reaches its activity then. */
  private reporting: { readonly row: CallRow; readonly reporter: CallReporter } | undefined;

  constructor(
    private readonly turn: ToolTurnState,
    private readonly parts: TurnParts,
  ) {}

  /**
   * The call's first step: its output, or the wait it stopped at. With a `reporter` (a joined
   * turn), a call that reaches its activity in this step reports its end there.
   */
  begin(row: CallRow, reporter?: CallReporter): CallStep {
    if (!reporter) return this.advance(row, { type: 'begin' });
    this.reporting = { row, reporter };
    try {
      return this.advance(row, { type: 'begin' });
    } finally {
      // A step reached after a wait settles through the call's promise.
      this.reporting = undefined;
    }
  }

  /** The machine's next action for the call after `event`, performed. */
  private advance(row: CallRow, event: CallEvent): CallStep {
    return this.perform(row, stepCall(this.turn, row, event, this.parts.facts));
  }

  /** The wait's error as the call's next event, or rethrown when the machine says it is not the call's. */
  private afterFailure(row: CallRow, err: unknown): CallStep {
    const action = stepCall(this.turn, row, { type: 'failed', failure: failureOf(err) }, this.parts.facts);
    if (action.type === 'rethrow') throw err;
    return this.perform(row, action);
  }

  /** Performs actions until the call ends or waits. */
  private perform(row: CallRow, first: CallAction): CallStep {
    const { turn, parts } = this;
    const { state, host, facts } = parts;
    let action = first;
    const next = (event: CallEvent): CallAction => stepCall(turn, row, event, facts);
    for (;;) {
      if ('emit' in action) for (const event of action.emit) state.emit(event);
      switch (action.type) {
        case 'claim_early': {
          const early = parts.early.claim(row.request);
          if (!early) {
            action = next({ type: 'not_early' });
            continue;
          }
          // Started while the model still answered: the plan claims it as it is.
          state.pending.set(row.request.toolCallId, { request: row.request, dispatched: true });
          return waitOn(early.promise, (output) => ({ output: state.record(settledOutput(turn, row, output)) }), rethrow, true);
        }
        case 'safe_point': {
          let atSafePoint: Promise<HookAction | undefined> | HookAction | undefined;
          try {
            atSafePoint = host.checkpoint('before_tool', action.event, row.request.name);
          } catch (err) {
            return this.afterFailure(row, err);
          }
          if (isPending(atSafePoint)) return waitOn(atSafePoint, (hook) => this.advance(row, { type: 'safe_point', action: hook }), (err) => this.afterFailure(row, err));
          action = next({ type: 'safe_point', action: atSafePoint });
          continue;
        }
        case 'take_queued': {
          const id = row.request.toolCallId;
          action = next({ type: 'queued', queued: state.control.take((q) => 'toolCallId' in q.intervention && q.intervention.toolCallId === id) });
          continue;
        }
        case 'judge': {
          let judged: Promise<CallEvent>;
          try {
            const evaluator = action.verdict.judge?.evaluator ?? '';
            judged = judgeCall(row.request, action.verdict, facts.confirmation).then((judgement) => {
              countJudgeUsage(state, row.request.turn, evaluator, judgement);
              return { type: 'judged', judgement } as const;
            });
          } catch (err) {
            return this.afterFailure(row, err);
          }
          return waitOn(judged, (event) => this.advance(row, event), (err) => this.afterFailure(row, err));
        }
        case 'ask': {
          let decision: Promise<CallAction>;
          try {
            decision = this.confirm(row, action.asked);
          } catch (err) {
            return this.afterFailure(row, err);
          }
          return waitOn(decision, () => this.advance(row, { type: 'decision_taken' }), (err) => this.afterFailure(row, err));
        }
        case 'hold': {
          let held: Promise<void>;
          try {
            held = host.holdWhilePaused();
          } catch (err) {
            return this.afterFailure(row, err);
          }
          return waitOn(held, () => this.advance(row, { type: 'resumed' }), (err) => this.afterFailure(row, err));
        }
        case 'wait_slot': {
          const limit = facts.concurrencyLimit!;
          let freed: Promise<void>;
          try {
            // Every waiter wakes when a slot frees: each checks again, so only one takes it.
            freed = condition(() => parts.dispatch.inFlight < limit);
          } catch (err) {
            return this.afterFailure(row, err);
          }
          return waitOn(freed, () => this.advance(row, { type: 'slot_freed' }), (err) => this.afterFailure(row, err));
        }
        case 'dispatch':
          return parts.dispatch.dispatch(turn, row, action.prepared, this.reporting?.row === row ? this.reporting.reporter : undefined);
        case 'close': {
          if (action.withdraw) state.human.approvals.delete(row.request.toolCallId);
          return { output: action.record ? state.record(action.output) : action.output };
        }
        case 'decision':
        case 'rethrow':
          throw new Error(`a call's step answered ${action.type} outside its wait`);
      }
    }
  }


  /**
   * Asks a human to decide the call (unless it was asked before this execution), waits for the
   * decision, and records it: the machine's `decision` action, inside the wait.
   */
  private async confirm(row: CallRow, asked: boolean): Promise<CallAction> {
    const { state, host, facts } = this.parts;
    const { request } = row;
    let withdrawNotice: (() => void) | undefined;
    if (!asked) {
      const digest = state.human.requestApproval(request);
      state.emit({ type: 'approval_requested', turn: request.turn, toolCallId: request.toolCallId, name: request.name, args: request.args, digest });
      // Only runs that ask for it schedule the notice: other runs' commands are as before.
      if (state.input.confirmation?.notify && runContext().work.sendsApprovalNotices) {
        withdrawNotice = sendApprovalNotice({ agent: state.agent.name, toolCallId: request.toolCallId, name: request.name, args: request.args, digest, turn: request.turn }, (event) => state.emit(event));
      }
    }
    state.refreshStatus();
    let decided = false;
    try {
      decided = await host.waitFor(() => state.human.approvals.get(request.toolCallId)?.decision !== undefined);
    } finally {
      // A notice not delivered yet would ask people about a call that waits no more.
      withdrawNotice?.();
      if (!decided) state.human.approvals.delete(request.toolCallId);
      state.refreshStatus();
    }
    const decision = state.human.takeDecision(request.toolCallId);
    state.refreshStatus();
    const taken = stepCall(this.turn, row, { type: 'decided', decision: decided ? decision : undefined }, facts);
    if ('emit' in taken) for (const event of taken.emit) state.emit(event);
    return taken;
  }
}
