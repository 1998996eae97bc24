/**
 * Turn boundaries in a run's history, without an event per turn.
 *
 * A rewind resets a run to the workflow task that began a turn, so that task must be findable
 * in history. A run marks a boundary by what the task does anyway when it schedules an activity
 * of the turn (`turn-<N>/…`: a tool call, or a model call): the reader (history/checkpoints.ts)
 * takes the task before the first such activity. (Runs of releases before 0.6.0, now outside the
 * support window, and runs of a bundle without the concluder below write a memo change,
 * `turnBoundary`, at every boundary: an event and a visibility write per turn.) When the task that
 * began the turn schedules none (the turn waits for a human, for a pause, or its planner has no
 * activity), the memo change is written in that task as before.
 *
 * A reset goes back to the start of a task, so a task is one reset point however many turns
 * begin in it (local tools run many turns in one task): only the first boundary of a task is
 * marked, and the reader lists one boundary per task for every run.
 *
 * Whether the task scheduled one is only known once the task's code has run: the internals
 * interceptor of this module's companion (`boundary-interceptors.ts`, in every bundle built by
 * `configureAgentBundler`) looks at the commands of each activation and adds the memo change for
 * every boundary no activity marks. A bundle built without it keeps writing memo changes.
 *
 * Since 1.0.0 (`first-task-begins-run`) a run does not mark its turn 0: its first task is that
 * boundary, and the reader knows it. Later turns that begin in that task share it, as above.
 *
 * What an activation's code leaves for its commands lives in the execution's run context
 * (run-context.ts), not in this module.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import type { coresdk } from '@temporalio/proto';
import { upsertMemo } from '@temporalio/workflow';
import { turnActivityIdPrefix } from '../../contracts/tools';
import { runContext } from '../kernel/run-context';

type Command = coresdk.workflow_commands.IWorkflowCommand;

/** Called once per run by the interceptors of `boundary-interceptors.ts`. */
export function installBoundaryConcluder(): void {
  runContext().boundaries.concluderInstalled = true;
}

/** Whether this run's bundle checks activations for unmarked boundaries. */
export function boundaryConcluderInstalled(): boolean {
  return runContext().boundaries.concluderInstalled;
}

/** The memo change that marks a boundary no activity of its task marks. */
function memoCommand(turn: number): Command {
  return { modifyWorkflowProperties: { upsertedMemo: { fields: { turnBoundary: defaultPayloadConverter.toPayload(turn) } } } };
}

/**
 * The commands of an activation, with a memo change first for each boundary of it that needs one
 * and none of its activities marks. Deterministic: it depends only on the commands, the run's
 * state and the task, which Temporal numbers by its history length as of the task's start, the
 * same on replay.
 *
 * @param task the history length of the activation's workflow task (asked only when a boundary waits).
 */
export function concludeBoundaries(commands: Command[], task: () => number): Command[] {
  const state = runContext().boundaries;
  if (state.pending.length === 0) return commands;
  const first = state.pending.splice(0)[0]!;
  const current = task();
  // A later boundary of a marked task shares its reset point: nothing names it.
  if (current === state.markedTask) return commands;
  state.markedTask = current;
  const isMarked = commands.some((c) => c.scheduleActivity?.activityId?.startsWith(turnActivityIdPrefix(first)));
  return isMarked || first === state.taskBegun ? commands : [memoCommand(first), ...commands];
}

/** How one run marks its turn boundaries. */
export class TurnBoundaries {
  /**
   * @param byCommands mark boundaries by the turn's activities, the first of each workflow task
   *   (the bundle has the concluder); otherwise by a memo change at each boundary.
   */
  constructor(readonly byCommands: boolean) {}

  mark(turn: number): void {
    if (this.byCommands) runContext().boundaries.pending.push(turn);
    else upsertMemo({ turnBoundary: turn });
  }

  /**
   * The run's first task begins `turn` (0): a boundary the reader finds without a mark. Later
   * boundaries of the task share it (`first-task-begins-run`).
   */
  beginWithTask(turn: number): void {
    if (!this.byCommands) return;
    const state = runContext().boundaries;
    state.taskBegun = turn;
    state.pending.push(turn);
  }
}
