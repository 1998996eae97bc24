/**
 * What the session page shows, as plain functions of what the API answers: the run a session's
 * run page belongs to, the session's active run, its events in order, and one line per event.
 */
import type { SessionEvent, SessionReport, SessionRunRecord } from './types';

/** The session and run number of a session's run, from its workflow id (`session-<id>/run-<n>`), if it is one. */
export function sessionOfRun(workflowId: string): { sessionId: string; runNumber: number } | undefined {
  const match = /^session-(.+)\/run-(\d+)$/.exec(workflowId);
  return match ? { sessionId: match[1] as string, runNumber: Number(match[2]) } : undefined;
}

/** The run of the session that runs now, if any (a session runs one at a time). */
export function activeRun(report: SessionReport | undefined): SessionRunRecord | undefined {
  return report?.runs.find((run) => run.status === 'running');
}

/** `known` with `incoming` added: each seq once, in seq order (a reconnect may send some again). */
export function mergeSessionEvents(known: readonly SessionEvent[], incoming: readonly SessionEvent[]): SessionEvent[] {
  const last = known.at(-1)?.seq ?? 0;
  const fresh = incoming.filter((e) => e.seq > last);
  if (fresh.length === 0) return known as SessionEvent[];
  return [...known, ...fresh].sort((a, b) => a.seq - b.seq);
}

/** One line for a session event, as the page lists them. */
export function sessionEventLine(e: SessionEvent): string {
  switch (e.type) {
    case 'message_taken':
      return `message ${e.messageId} ${e.delivery === 'queued' ? 'queued' : e.delivery === 'next' ? 'runs next' : 'steered'} as run #${e.runNumber} (whenBusy ${e.whenBusy})`;
    case 'message_repeated':
      return `message ${e.messageId} sent again: answered with run #${e.runNumber}`;
    case 'run_ending':
      return `run #${e.runNumber} ending: ${e.by} by message ${e.messageId}`;
    case 'run_started':
      return `run #${e.runNumber} started${e.messageId ? ` for message ${e.messageId}` : ''}`;
    case 'run_ended':
      return `run #${e.runNumber} ended ${e.status}${e.endedBy ? ` (${e.endedBy})` : ''}`;
    case 'steer_delivered':
      return `message ${e.messageId} seen by run #${e.runNumber}`;
    case 'steer_requeued':
      return `message ${e.messageId} not seen by run #${e.fromRun}: runs as #${e.runNumber}`;
    case 'queue_edited':
      return `queue: ${e.action === 'front' ? 'moved to front' : e.action === 'drop' ? 'dropped' : 'edited'} message ${e.messageId}${e.reason ? ` (${e.reason})` : ''}`;
  }
}
