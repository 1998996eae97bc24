import { AgentClientError } from '../agent-client';
import { formatEvent } from '../format';
import { formatHistoryEntry } from '../history-view';
import type { CommandContext } from './command';

/**
 * How long `status`, `events` and `--follow` wait for a worker to answer a query before they
 * read the run's history instead (with no worker polling, the server would wait about 30 s).
 */
export const queryTimeoutMs = 5_000;

/** Whether an error says no worker answered a query (none running, or the run never registered it). */
export function isUnanswered(err: unknown): err is AgentClientError {
  return err instanceof AgentClientError && err.type === 'unanswered';
}

/**
 * Prints the run's steps as its Temporal history records them, after a line on stderr saying
 * why (no worker answered). With `--json`, one `{ source: 'history', ... }` object per step.
 */
export async function printHistoryEntries(ctx: CommandContext, runId: string, reason: string): Promise<void> {
  ctx.progress?.(`agentctl: ${reason}; read from history instead (the run's event log needs a worker)`);
  for (const entry of await ctx.agents.historyOf(runId)) ctx.out.emit({ source: 'history', ...entry }, () => formatHistoryEntry(entry));
}

/**
 * Prints a run's events as they arrive (one line each: formatEvent, or JSON with `--json`)
 * until the run ends, or until `limit` events were printed. When no worker answers before any
 * event was printed, prints the run's history instead: all of it when the run has ended; when
 * it is open, what happened so far, then fails (nothing moves without a worker).
 *
 * @returns the seq of the last event printed (or `afterSeq`).
 * @throws AgentClientError `unanswered` when no worker answers for an open run.
 */
export async function followEvents(ctx: CommandContext, runId: string, afterSeq = 0, limit?: number): Promise<number> {
  let last = afterSeq;
  let printed = 0;
  if (limit !== undefined && limit <= 0) return last;
  const onRewind = ({ epoch, fromSeq }: { epoch: string; fromSeq: number }): void =>
    ctx.out.emit({ rewound: { epoch, fromSeq } }, () => `-- the run was rewound (run ${epoch}): events from seq ${fromSeq} on are replaced --`);
  try {
    for await (const event of ctx.agents.follow(runId, { afterSeq, queryTimeoutMs, onRewind })) {
      ctx.out.emit(event, () => formatEvent(event));
      last = event.seq;
      printed++;
      if (limit !== undefined && printed >= limit) break;
    }
  } catch (err) {
    if (!isUnanswered(err) || printed > 0) throw err;
    await printHistoryEntries(ctx, runId, err.message);
    const { workflowStatus } = await ctx.agents.statusFromHistory(runId);
    if (workflowStatus === 'RUNNING') throw err;
  }
  return last;
}
