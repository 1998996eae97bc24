/**
 * The driver of a tool turn: runs the turn's calls (each through call-driver.ts, which performs
 * what the turn machine returns) and waits for them by the turn's cadence (see TurnCadence), in
 * the same microtasks as before, so concurrent calls' commands keep the order recorded
 * histories have. It takes no decision of its own: which call of a graph starts, closes or is
 * cancelled is the machine's `scanTurn` / `callEnded`.
 */
import { CancellationScope } from '@temporalio/workflow';
import type { ToolOutput } from '../../contracts/tools';
import { UntimedScope } from '../kernel/untimed-scope';
import type { CallReporter } from './call-dispatch';
import { CallDriver, type TurnParts } from './call-driver';
import { settleSteps, type CallStep } from './call-steps';
import { callEnded, scanTurn, turnAnswered, turnOutputs } from './turn-graph';
import type { CallRow, ToolTurnState } from './turn-machine';

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
  private readonly calls: CallDriver;
  /** Whether the joined call in its first step reached its activity (its activity's step reports). */
  private reported = false;
  /** The join of a `joined` turn. */
  private joined: { readonly outputs: ToolOutput[]; left: number; resolve: (outputs: ToolOutput[]) => void; reject: (err: unknown) => void } | undefined;

  constructor(
    private readonly turn: ToolTurnState,
    private readonly parts: TurnParts,
  ) {
    this.calls = new CallDriver(turn, parts);
  }

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
      step = this.calls.begin(row);
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
    this.reported = false;
    try {
      step = this.calls.begin(row, this);
    } catch (err) {
      return Promise.reject(err);
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

}
