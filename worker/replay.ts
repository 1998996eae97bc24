import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { buildWorkflowBundle } from './create-worker';

/** Outcome of replaying a history against the current workflow code. */
export type ReplayOutcome =
  | { readonly ok: true; readonly events: number }
  | { readonly ok: false; readonly kind: 'nondeterminism' | 'failure'; readonly problem: string; readonly detail: string };

/** Turns the SDK's nondeterminism message into plain words: which event, which command differed. */
export function explainNondeterminism(message: string): string {
  const core = /Nondeterminism error: (.*?)(?:", source|$)/s.exec(message)?.[1] ?? message;
  const typed = /Activity type of scheduled event '([^']+)' does not match activity type of activity command '([^']+)'/.exec(core);
  if (typed) {
    return `the history scheduled activity "${typed[1]}" but the current code schedules "${typed[2]}" at that point`;
  }
  const machine = /(\w+)Machine does not handle this event: HistoryEvent\(id: (\d+), (\w+)\)/.exec(core);
  if (machine) {
    return `at history event ${machine[2]} (${machine[3]}) the current code issued a different command (a ${machine[1]} command) than the one recorded`;
  }
  const missing = /No command scheduled for event HistoryEvent\(id: (\d+), (\w+)\)/.exec(core);
  if (missing) return `history event ${missing[1]} (${missing[2]}) has no matching command in the current code: the code no longer does that step`;
  return core.trim();
}

/**
 * Replays a history (JSON, as exported) against the current workflow code and reports a
 * determinism problem in plain words instead of throwing.
 */
export async function replayHistoryJson(json: unknown, bundle?: WorkflowBundleWithSourceMap): Promise<ReplayOutcome> {
  const history = historyFromJSON(json);
  const workflowBundle = bundle ?? (await buildWorkflowBundle());
  try {
    await Worker.runReplayHistory({ workflowBundle }, history);
    return { ok: true, events: history.events?.length ?? 0 };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof DeterminismViolationError) {
      return { ok: false, kind: 'nondeterminism', problem: explainNondeterminism(message), detail: message };
    }
    return { ok: false, kind: 'failure', problem: message, detail: message };
  }
}
