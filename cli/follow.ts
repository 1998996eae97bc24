import { AgentClientError } from '../client/agent-client';
import { formatEvent } from '../client/format';
import { formatHistoryEntry } from '../client/history-view';
import { isServerUnavailable } from '../client/unavailable';
import { noWorkerRead, type NoWorkerRead } from '../client/no-worker-reads';
import type { CommandContext } from './command';

/** Backoff of `--follow` while the Temporal server is unreachable: 0.5 s doubling to 10 s. */
export const reconnectDelaysMs = { first: 500, max: 10_000 } as const;
/** `--follow` gives up when the server (or, mid-follow, the run) stays unreachable this long. */
export const reconnectGiveUpMs = 5 * 60_000;

/**
 * How long `status`, `events` and `--follow` wait for a worker to answer a query before they
 * read the run's history instead (with no worker polling, the server would wait about 30 s).
 * When no worker polls the run's task queue at all, `status`, `events`, `pending` and `tree` do
 * not ask: they read the history at once.
 */
export const queryTimeoutMs = 5_000;

/** Whether an error says no worker answered a query (none running, or the run never registered it). */
export function isUnanswered(err: unknown): err is AgentClientError {
  return err instanceof AgentClientError && err.type === 'unanswered';
}

/**
 * Says on stderr why a command shows the run as its history records it: no worker polls the
 * run's task queue (and when one last did), or none answered in time.
 */
export async function showingRecorded(ctx: CommandContext, runId: string): Promise<void> {
  let why = `no worker answered run ${runId} in time`;
  try {
    why = noWorkerRead(runId, await ctx.agents.workerPresence(runId), true)?.reason ?? why;
  } catch {
    // The reason stays general; what the history says still helps.
  }
  ctx.progress?.(`agentctl: ${why}; showing the run as recorded`);
}

/** Says on stderr why a command shows the run as its history records it, when the reason is known. */
export function showingRecordedBecause(ctx: CommandContext, why: NoWorkerRead): void {
  ctx.progress?.(`agentctl: ${why.reason}; showing the run as recorded`);
}

/**
 * Prints the run's steps as its Temporal history records them, after a line on stderr saying
 * why (no worker answered). With `--json`, one `{ source: 'history', ... }` object per step.
 */
export async function printHistoryEntries(ctx: CommandContext, runId: string, why?: NoWorkerRead): Promise<void> {
  if (why) showingRecordedBecause(ctx, why);
  else await showingRecorded(ctx, runId);
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
  let delayMs: number = reconnectDelaysMs.first;
  let unreachableSince: number | undefined;
  for (;;) {
    try {
      for await (const event of ctx.agents.follow(runId, { afterSeq: last, queryTimeoutMs, onRewind })) {
        unreachableSince = undefined;
        delayMs = reconnectDelaysMs.first;
        ctx.out.emit(event, () => formatEvent(event));
        last = event.seq;
        printed++;
        if (limit !== undefined && printed >= limit) return last;
      }
      return last;
    } catch (err) {
      // The server went away (restart, network), or mid-follow nothing answered in time (a server
      // coming back, a worker restarting): resume from the last seq once it answers again.
      if (isServerUnavailable(err) || (isUnanswered(err) && printed > 0)) {
        unreachableSince ??= Date.now();
        if (Date.now() - unreachableSince > reconnectGiveUpMs) throw err;
        const what = isServerUnavailable(err) ? 'the Temporal server is unreachable' : 'the run does not answer';
        ctx.progress?.(`agentctl: ${what} (${firstLine(err)}); reconnecting in ${(delayMs / 1000).toFixed(1)} s, from seq ${last + 1}`);
        await new Promise((r) => setTimeout(r, delayMs));
        delayMs = Math.min(delayMs * 2, reconnectDelaysMs.max);
        continue;
      }
      if (!isUnanswered(err) || printed > 0) throw err;
      await printHistoryEntries(ctx, runId);
      const { workflowStatus } = await ctx.agents.statusFromHistory(runId);
      if (workflowStatus === 'RUNNING') throw err;
      return last;
    }
  }
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}
