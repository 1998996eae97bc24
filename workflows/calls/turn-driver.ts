/**
 * The driver of a tool turn: performs what the turn machine (turn-machine.ts) returns with
 * Temporal (safe points, approvals, pause holds, slots, activities, cancellation scopes) and
 * feeds what came of it back as the machine's next event. It takes no decision of its own.
 *
 * Each call is a chain of synchronous steps (call-steps.ts): a step performs actions until one
 * waits, and the wait's outcome is the next event. The turn waits for its calls by its cadence
 * (see TurnCadence), in the same microtasks as before, so concurrent calls' commands keep the
 * order recorded histories have.
 */
import { CancellationScope, condition, isCancellation } from '@temporalio/workflow';
import type { ToolOutput } from '../../contracts/tools';
import type { HookAction } from '../agents/agent-hooks';
import { RunTerminated } from '../kernel/run-terminated';
import { UntimedScope } from '../kernel/untimed-scope';
import { isPending } from '../state/safe-point';
import type { RunState } from '../state/run-state';
import type { CallDispatch, CallReporter } from './call-dispatch';
import { rethrow, settleSteps, waitOn, type CallStep } from './call-steps';
import type { EarlyCalls } from './early-calls';
import { callEnded, scanTurn, settledOutput, stepCall, turnAnswered, turnOutputs, type CallAction, type CallEvent, type CallRow, type ToolTurnState, type TurnFacts, type WaitFailure } from './turn-machine';
import type { ToolTurns } from './tool-turns';

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
  readonly state: RunState;
  readonly turns: ToolTurns;
  readonly host: TurnDriverHost;
  readonly dispatch: CallDispatch;
  readonly early: EarlyCalls;
  readonly facts: TurnFacts;
}

function failureOf(err: unknown): WaitFailure {
  return err instanceof RunTerminated ? 'terminated' : isCancellation(err) ? 'cancelled' : 'other';
}

/**
 * Runs one turn's calls in the run's current tool-turn scope: every call is answered (cancelled
 * calls with `cancelled` outputs); the outputs, in call order, go through `then` in the step that
 * ends the turn.
 */
export function driveTurn<R>(turn: ToolTurnState, parts: TurnParts, then: (outputs: ToolOutput[]) => R | Promise<R>): Promise<R> {
  const driver = new TurnDriver(turn, parts);
  const calls = parts.turns.begin();
  const settled = (): void => parts.turns.end();
  // No async wrappers where a promise will do: every promise a workflow creates costs a stack
  // capture in the SDK, and a turn of one call is the common case.
  let running: Promise<ToolOutput | ToolOutput[]>;
  try {
    running = calls.run((): Promise<ToolOutput | ToolOutput[]> => driver.run());
  } catch (err) {
    settled();
    return Promise.reject(err);
  }
  return running.then(
    (outputs) => {
      settled();
      return then(Array.isArray(outputs) ? outputs : [outputs]);
    },
    (err: unknown) => {
      settled();
      throw err;
    },
  );
}

class TurnDriver implements CallReporter {
  /** The call whose first step is running in a `joined` turn: it reports its end to the join. */
  private reporting: CallRow | undefined;
  /** Whether that call reached its activity in its first step (its activity's step reports). */
  private reported = false;
  /** The join of a `joined` turn. */
  private joined: { readonly outputs: ToolOutput[]; left: number; resolve: (outputs: ToolOutput[]) => void; reject: (err: unknown) => void } | undefined;

  constructor(
    private readonly turn: ToolTurnState,
    private readonly parts: TurnParts,
  ) {}

  run(): Promise<ToolOutput | ToolOutput[]> {
    const { rows } = this.turn;
    switch (this.turn.cadence) {
      case 'single':
        return this.call(rows[0]!);
      case 'joined':
        return this.join();
      case 'in_order':
        return this.inOrder();
      case 'graph':
        return this.graph();
    }
  }

  // ---- cadences ---------------------------------------------------------------------------

  /** One call, through its steps: its output, or a rejection (an error before its first step ends too). */
  private call(row: CallRow): Promise<ToolOutput> {
    let step: CallStep;
    try {
      step = this.advance(row, { type: 'begin' });
    } catch (err) {
      return Promise.reject(err);
    }
    return settleSteps(step);
  }

  /**
   * Parallel calls' outputs, in call order, once every call has ended; rejected with the first
   * error, as `Promise.all` of their promises would be. Most calls report their ends from the
   * step that records their output, so a call costs no promise of the join's own.
   */
  private join(): Promise<ToolOutput[]> {
    const { rows } = this.turn;
    const all = new Promise<ToolOutput[]>((resolve, reject) => {
      this.joined = { outputs: new Array<ToolOutput>(rows.length), left: rows.length, resolve, reject };
    });
    for (const row of rows) this.reportingCall(row)?.then((output) => this.ended(row, output), this.joined!.reject);
    return all;
  }

  /** A joined call's end: the join resolves with the last. */
  private ended(row: CallRow, output: ToolOutput): void {
    const join = this.joined!;
    join.outputs[row.index] = output;
    join.left -= 1;
    if (join.left === 0) join.resolve(join.outputs);
  }

  /**
   * {@link call} for a joined call: a call that ends without a promise of its own (closed at once,
   * or dispatched without waiting before its activity) reports to the join in the step that ends
   * it, and this returns undefined; otherwise the call's promise.
   */
  private reportingCall(row: CallRow): Promise<ToolOutput> | undefined {
    let step: CallStep;
    this.reporting = row;
    this.reported = false;
    try {
      step = this.advance(row, { type: 'begin' });
    } catch (err) {
      return Promise.reject(err);
    } finally {
      // A step reached after a wait settles through the call's promise.
      this.reporting = undefined;
    }
    if ('output' in step) {
      this.ended(row, step.output);
      return undefined;
    }
    return this.reported ? undefined : settleSteps(step);
  }

  private async inOrder(): Promise<ToolOutput[]> {
    const outputs: ToolOutput[] = [];
    for (const row of this.turn.rows) outputs.push(await this.call(row));
    return outputs;
  }

  /**
   * A dependency-aware plan: starts what the machine's scan says, cancels the alternatives that
   * lost, and waits for calls to end. Only calls with an output path (the alternatives, which the
   * turn may cancel one by one) get a scope of their own; the others run in the turn's scope,
   * which cancels them all the same. A call that fails fails the turn at once.
   */
  private async graph(): Promise<ToolOutput[]> {
    const { turn, parts } = this;
    const scopes = new Map<CallRow, CancellationScope>();
    const turnScope = CancellationScope.current();
    const scanFacts = {
      get turnCancelled(): boolean {
        return turnScope.consideredCancelled;
      },
      get cancelHint() {
        return parts.turns.cancelHint;
      },
      writtenOutput: (path: string) => parts.state.outputs.get(path),
    };

    // The loop's wait: resolved by the next call that ends (or fails).
    let wake: (() => void) | undefined;
    let failure: { readonly err: unknown } | undefined;
    const woken = (): void => {
      const resume = wake;
      wake = undefined;
      resume?.();
    };
    // Nothing else reads a call's promise: its failure goes to the loop.
    const failed = (err: unknown): void => {
      failure ??= { err };
      woken();
    };
    const finished = (row: CallRow, output: ToolOutput): void => {
      const actions = callEnded(turn, row, output);
      woken();
      for (const action of actions) {
        if (action.type === 'write_output') parts.state.writeOutput(action.path, action.output);
        else if (action.type === 'cancel') scopes.get(action.row)?.cancel();
      }
    };

    while (!turnAnswered(turn)) {
      for (const action of scanTurn(turn, scanFacts)) {
        if (action.type === 'close') {
          parts.state.record(action.output);
          continue;
        }
        if (action.type !== 'start') continue;
        const { row } = action;
        let ending: Promise<ToolOutput>;
        if (row.planned.outputPath !== undefined) {
          const scope = new UntimedScope();
          scopes.set(row, scope);
          ending = scope.run(() => this.call(row));
        } else {
          ending = this.call(row);
        }
        ending.then((output) => {
          try {
            finished(row, output);
          } catch (err) {
            failed(err);
          }
        }, failed);
      }
      if (failure) throw failure.err;
      if (turnAnswered(turn)) break;
      // Waiting for our own calls must not be cut short: a cancelled turn still answers every call.
      await new Promise<void>((resolve) => (wake = resolve));
    }
    if (failure) throw failure.err;
    return turnOutputs(turn);
  }

  // ---- a call's steps ---------------------------------------------------------------------

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
          return parts.dispatch.dispatch(turn, row, action.prepared, this.reporting === row ? this : undefined);
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

  /** A joined call's activity reports its end from its own step (see CallDispatch.dispatch). */
  reportEnd(row: CallRow, output: ToolOutput): void {
    this.ended(row, output);
  }

  /** The joined turn fails with an error of a call's last step. */
  reportFailure(err: unknown): void {
    this.joined!.reject(err);
  }

  /** Marks the reporting call as reporting from its activity's step. */
  willReport(): void {
    this.reported = true;
  }

  /**
   * Asks a human to decide the call (unless it was asked before this execution), waits for the
   * decision, and records it: the machine's `decision` action, inside the wait.
   */
  private async confirm(row: CallRow, asked: boolean): Promise<CallAction> {
    const { state, host, facts } = this.parts;
    const { request } = row;
    if (!asked) {
      state.human.requestApproval(request);
      state.emit({ type: 'approval_requested', turn: request.turn, toolCallId: request.toolCallId, name: request.name, args: request.args });
    }
    state.refreshStatus();
    let decided = false;
    try {
      decided = await host.waitFor(() => state.human.approvals.get(request.toolCallId)?.decision !== undefined);
    } finally {
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
