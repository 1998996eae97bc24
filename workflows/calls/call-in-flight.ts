import { isCancellation } from '@temporalio/workflow';
import type { RetryHint, ToolOutput, ToolRequest } from '../../contracts/tools';
import { closedOutput } from '../kernel/outputs';
import { RunTerminated } from '../kernel/run-terminated';
import type { CallStep } from './call-steps';
import type { PreparedCall } from './call-rules';
import type { CallReport, GraphCallOptions } from './tool-turn';

/**
 * One call in flight: the record that goes through CallRunner's steps, from the plan to its
 * output. `request` changes as hooks, operators and humans edit the call.
 */
export interface CallInFlight {
  request: ToolRequest;
  readonly graph: GraphCallOptions | undefined;
  /** Records the call's output (through the graph's `settle` in a dependency-aware plan). */
  readonly finish: (output: ToolOutput) => ToolOutput;
  /**
   * Where the call reports its end (ToolTurnHost.reportCall), while its first step runs: a call
   * that reaches its activity in that step reports from the activity's step and sets `reported`;
   * one that waits first settles through its promise.
   */
  report?: CallReport;
  reported?: boolean;
}

/** A call that passed its checks and is to run. */
export type DispatchableCall = Extract<PreparedCall, { type: 'dispatch' }>;

/**
 * The `catch` of a wait before dispatch: a kill or cancellation answers the call as ended before
 * dispatch (the request as it stands then, with the turn's cancel hint); anything else is rethrown.
 */
export function endsBeforeDispatch(call: CallInFlight, cancelHint: () => RetryHint | undefined): (err: unknown) => CallStep {
  return (err) => {
    if (err instanceof RunTerminated || isCancellation(err)) return { output: call.finish(closedOutput(call.request, 'cancelled', 'the run ended before this call was dispatched', cancelHint())) };
    throw err;
  };
}
