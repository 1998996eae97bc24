import type { CarriedOpenTurn } from '../../contracts/carried-state';
import type { RunState } from '../state/run-state';
import { holdBoundCalls } from './await-step';

/**
 * Puts back what a run waited for when it continued as new in the middle of a turn: the calls
 * that had ended, the approvals still asked, the open await with its answers, and the calls they
 * hold. Called before the run's handlers are set: a decision or an answer that reaches the new
 * execution in its first workflow task (delivered as its handler is set) finds the wait it is
 * for, instead of "nothing waits". Sets state only, no event and no command; the loop goes on
 * with the turn where it stopped (CallRunner.resumeTurn, runAwait), and a decision given
 * meanwhile is there for it.
 */
export function restoreCarriedWaits(state: RunState, open: CarriedOpenTurn | undefined): void {
  if (open?.kind === 'await') {
    holdBoundCalls(state, open.spec);
    state.human.restoreAwait(open, state.turn);
  } else if (open?.kind === 'tool_calls') {
    for (const output of open.ended) state.turnOutputs.set(output.toolCallId, output);
    for (const { request, requestedAt } of open.waiting) state.human.restoreApproval(request, requestedAt);
    for (const request of open.requests) {
      if (!state.turnOutputs.has(request.toolCallId)) state.pending.set(request.toolCallId, { request, dispatched: false });
    }
  }
}
