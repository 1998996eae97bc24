import { CancellationScope } from '@temporalio/workflow';
import type { DependencyOutput, RetryHint, ToolError, ToolOutput, ToolRequest, WrittenOutput } from '../../contracts/tools';
import type { ToolTurns } from './tool-turns';
import { usesCallGraph } from '../state/call-graph';
import { allAnswered, decideCall, graphSchedule, lostMessage, mayConsider, pathWon, recordClosed, recordEnded, recordStarted, settleAlternative } from './call-schedule';
import { UntimedScope } from '../kernel/untimed-scope';

/** What a call of a dependency-aware plan gets from its turn. */
export interface GraphCallOptions {
  /** Outputs of the calls it depends on, in `dependsOn` order. */
  readonly dependencies: readonly DependencyOutput[];
  /** Why the turn cancelled this call (its alternative won), once it did. */
  cancelMessage(): string | undefined;
  /** Sees the call's output before it is recorded; turns a late alternative's success into an output conflict. */
  settle(output: ToolOutput): ToolOutput;
}

/** Where a call that reports its end ({@link ToolTurnHost.reportCall}) sends it. */
export interface CallReport {
  /** The call's output, recorded: the call has ended. */
  readonly done: (output: ToolOutput) => void;
  /** An error the call's steps threw (a kill while it waited, a bug): it fails the turn. */
  readonly fail: (err: unknown) => void;
}

/** What a tool turn needs from the run; keeps the turn mechanics apart from run state. */
export interface ToolTurnHost {
  readonly parallel: boolean;
  /** The run's tool turns: this turn begins and ends there, and a kill or the time budget cancels it there. */
  readonly turns: ToolTurns;
  /** Runs one call through its safe point, checks and dispatch; always yields an output. */
  runCall(request: ToolRequest, index: number, graph?: GraphCallOptions): Promise<ToolOutput>;
  /**
   * Runs one call like {@link runCall}, but a call that ends without a promise of its own (closed
   * at once, or dispatched without waiting before its activity) reports to `report` in the step
   * that ends it, and this returns undefined; otherwise it returns the call's promise, which the
   * caller reacts to as to {@link runCall}'s (an error before the call's first step ends is a
   * rejected promise, as there).
   */
  reportCall(request: ToolRequest, index: number, report: CallReport): Promise<ToolOutput> | undefined;
  /** Answers a call the turn does not run (its dependency failed, its output path is taken); records it. */
  closeCall(request: ToolRequest, type: ToolError['type'], message: string, retryHint?: RetryHint): ToolOutput;
  /** The run's record of a written output path, if it was written in an earlier turn or this one. */
  writtenOutput(path: string): WrittenOutput | undefined;
  /** Writes an output path with a successful call's output. */
  writeOutput(path: string, output: ToolOutput): void;
}

/**
 * Runs the calls of one plan, concurrently or one by one, in a scope the run can cancel:
 * cancelled calls come back as `cancelled` outputs, so every call is answered. Outputs are
 * in call order. A plan with dependencies or output paths runs as a graph ({@link runCallGraph}).
 * The outputs go through `then` in the same step that ends the turn (no promise of its own).
 */
export function runToolTurn<R>(requests: readonly ToolRequest[], host: ToolTurnHost, then: (outputs: ToolOutput[]) => R | Promise<R>): Promise<R> {
  const calls = host.turns.begin();
  const settled = (): void => host.turns.end();
  // No async wrappers where a promise will do: every promise a workflow creates costs a stack
  // capture in the SDK, and a turn of one call is the common case.
  let turn: Promise<ToolOutput | ToolOutput[]>;
  try {
    turn = calls.run((): Promise<ToolOutput | ToolOutput[]> => {
      if (usesCallGraph(requests)) return runCallGraph(requests, host);
      if (requests.length === 1) return host.runCall(requests[0]!, 0);
      if (host.parallel) return joinCalls(requests, host);
      return runInOrder(requests, host);
    });
  } catch (err) {
    settled();
    return Promise.reject(err);
  }
  return turn.then(
    (outputs) => {
      settled();
      const all = Array.isArray(outputs) ? outputs : [outputs];
      return then(all);
    },
    (err: unknown) => {
      settled();
      throw err;
    },
  );
}

/**
 * Parallel calls' outputs, in call order, once every call has ended; rejected with the first
 * error, as `Promise.all` of their promises would be. Most calls report their ends from the step
 * that records their output, so a call costs no promise of the join's own: `Promise.all` makes
 * one per call to react to its promise (and each promise costs the SDK's promise hook a stack
 * capture).
 */
function joinCalls(requests: readonly ToolRequest[], host: ToolTurnHost): Promise<ToolOutput[]> {
  const outputs = new Array<ToolOutput>(requests.length);
  let left = requests.length;
  let resolve!: (outputs: ToolOutput[]) => void;
  let reject!: (err: unknown) => void;
  const all = new Promise<ToolOutput[]>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const report = (index: number): CallReport => ({
    done: (output) => {
      outputs[index] = output;
      left -= 1;
      if (left === 0) resolve(outputs);
    },
    fail: reject,
  });
  for (const [i, r] of requests.entries()) {
    const ended = report(i);
    host.reportCall(r, i, ended)?.then(ended.done, ended.fail);
  }
  return all;
}

async function runInOrder(requests: readonly ToolRequest[], host: ToolTurnHost): Promise<ToolOutput[]> {
  const outputs: ToolOutput[] = [];
  for (const [i, r] of requests.entries()) outputs.push(await host.runCall(r, i));
  return outputs;
}

/**
 * Runs a dependency-aware plan: the driver of the turn's schedule (call-schedule.ts), which takes every decision
 * (which call starts, which is answered without running, which alternative wins an output path)
 * from recorded results, so it replays exactly. This loop only starts calls, cancels the
 * alternatives that lost, and waits for calls to end.
 *
 * Only calls with an output path (the alternatives, which the turn may cancel one by one) get a
 * scope of their own, an {@link UntimedScope}; the others run in the turn's scope, which cancels
 * them all the same. The calls' own steps wake the loop, and a call that fails fails the turn at
 * once.
 */
async function runCallGraph(requests: readonly ToolRequest[], host: ToolTurnHost): Promise<ToolOutput[]> {
  const schedule = graphSchedule(requests, host.parallel);
  const scopes = new Map<string, CancellationScope>();
  const turn = CancellationScope.current();

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

  const finished = (r: ToolRequest, output: ToolOutput): void => {
    recordEnded(schedule, r, output);
    woken();
    const won = pathWon(schedule, r, output);
    if (!won) return;
    host.writeOutput(won.path, output);
    for (const loser of won.losers) scopes.get(loser)?.cancel();
  };

  const index = new Map(requests.map((r, i) => [r.toolCallId, i]));
  while (!allAnswered(schedule)) {
    const before = schedule.settled;
    for (const r of requests) {
      if (!mayConsider(schedule, r)) continue;
      const decision = decideCall(schedule, r, turn.consideredCancelled, (path) => host.writtenOutput(path));
      if (decision.kind === 'wait') continue;
      if (decision.kind === 'close') {
        const hint = decision.type === 'cancelled' && turn.consideredCancelled ? host.turns.cancelHint : undefined;
        recordClosed(schedule, r, host.closeCall(r, decision.type, decision.message, hint));
        continue;
      }
      recordStarted(schedule, r);
      const options: GraphCallOptions = {
        dependencies: decision.dependencies,
        cancelMessage: () => lostMessage(schedule, r),
        settle: (output) => settleAlternative(schedule, r, output),
      };
      const call = (): Promise<ToolOutput> => host.runCall(r, index.get(r.toolCallId)!, options);
      let ending: Promise<ToolOutput>;
      if (r.outputPath !== undefined) {
        const scope = new UntimedScope();
        scopes.set(r.toolCallId, scope);
        ending = scope.run(call);
      } else {
        ending = call();
      }
      ending.then(
        (output) => {
          try {
            finished(r, output);
          } catch (err) {
            failed(err);
          }
        },
        failed,
      );
    }
    if (failure) throw failure.err;
    if (allAnswered(schedule)) break;
    // A call closed during the scan may unblock calls earlier in plan order: scan again at once.
    if (schedule.settled !== before) continue;
    // Waiting for our own calls must not be cut short: a cancelled turn still answers every call.
    await new Promise<void>((resolve) => (wake = resolve));
  }
  if (failure) throw failure.err;
  return requests.map((r) => schedule.outputs.get(r.toolCallId)!);
}
