/**
 * The turn machine's decisions for a dependency-aware plan as a whole (the calls of one call are
 * turn-machine.ts's `stepCall`): which calls start, which are answered without running, which
 * alternative wins an output path and which are cancelled, and when the turn is done. Pure; the
 * graph rules are call-schedule.ts. Tests: test/unit/turn-machine-graph.test.ts.
 */
import type { RetryHint, ToolOutput, WrittenOutput } from '../../contracts/tools';
import { closedOutput } from '../kernel/outputs';
import { allAnswered, decideCall, mayConsider, pathWon, recordClosed, recordEnded, recordStarted } from './call-schedule';
import type { CallRow, ToolTurnState } from './turn-machine';

/** What the driver does for the turn after a scan or a call's end. */
export type TurnAction =
  | { readonly type: 'start'; readonly row: CallRow }
  | { readonly type: 'close'; readonly row: CallRow; readonly output: ToolOutput }
  | { readonly type: 'write_output'; readonly path: string; readonly output: ToolOutput }
  | { readonly type: 'cancel'; readonly row: CallRow };

/**
 * One scan of a dependency-aware turn, in plan order: the calls to answer without running (the
 * turn was cancelled, the plan's shape or a failed dependency rules them out, their output path
 * is taken) and the calls to start, within the turn's slots. Scanning again after a close may
 * start calls earlier in the plan: {@link scanTurn} does until nothing changes.
 */
export function scanTurn(turn: ToolTurnState, facts: { readonly turnCancelled: boolean; readonly cancelHint: RetryHint | undefined; writtenOutput(path: string): WrittenOutput | undefined }): TurnAction[] {
  const schedule = turn.schedule!;
  const actions: TurnAction[] = [];
  for (;;) {
    const before = schedule.settled;
    for (const row of turn.rows) {
      const r = row.planned;
      if (!mayConsider(schedule, r)) continue;
      const decision = decideCall(schedule, r, facts.turnCancelled, (path) => facts.writtenOutput(path));
      if (decision.kind === 'wait') continue;
      if (decision.kind === 'close') {
        const hint = decision.type === 'cancelled' && facts.turnCancelled ? facts.cancelHint : undefined;
        const output = closedOutput(r, decision.type, decision.message, hint);
        row.phase = 'ended';
        recordClosed(schedule, r, output);
        actions.push({ type: 'close', row, output });
        continue;
      }
      recordStarted(schedule, r);
      row.dependencies = decision.dependencies;
      actions.push({ type: 'start', row });
    }
    // A call closed during the scan may unblock calls earlier in plan order: scan again at once.
    if (allAnswered(schedule) || schedule.settled === before) return actions;
  }
}

/**
 * A started call of a dependency-aware turn ended with `output` (recorded): its slot is free, and
 * when it won its output path, the path to write and the alternatives still running to cancel.
 */
export function callEnded(turn: ToolTurnState, row: CallRow, output: ToolOutput): TurnAction[] {
  const schedule = turn.schedule!;
  recordEnded(schedule, row.planned, output);
  const won = pathWon(schedule, row.planned, output);
  if (!won) return [];
  const byId = new Map(turn.rows.map((r) => [r.planned.toolCallId, r]));
  return [{ type: 'write_output', path: won.path, output }, ...won.losers.map((id): TurnAction => ({ type: 'cancel', row: byId.get(id)! }))];
}

/** Whether every call of a dependency-aware turn has its answer. */
export function turnAnswered(turn: ToolTurnState): boolean {
  return allAnswered(turn.schedule!);
}

/** The outputs of a dependency-aware turn, in plan order, once {@link turnAnswered}. */
export function turnOutputs(turn: ToolTurnState): ToolOutput[] {
  const { outputs } = turn.schedule!;
  return turn.rows.map((r) => outputs.get(r.planned.toolCallId)!);
}
