/**
 * Followers of a run read its events query; a worker's announcement that the log grew lets them
 * read at once instead of at their next paced read (client/poll-pacing.ts). After each activation
 * (the bundle's internals interceptor, boundary-interceptors.ts), a run whose log grew tells the
 * worker through a sink: no command, nothing in history, and not called on replay.
 */
import { workflowInfo } from '@temporalio/workflow';
import { announceEvents } from '../bundle/bundle-sinks';
import { runContext } from '../kernel/run-context';

/** Registers the run's event log for announcements (once per execution). */
export function announceEventsOf(log: { readonly lastSeq: number }): void {
  const { events } = runContext();
  events.log = log;
  events.announcedSeq = log.lastSeq;
}

/**
 * Announces the log's newest seq if it grew since the last announcement. Not while replaying:
 * nobody waits for those events, and a replay worker built without this bundle's sinks (the
 * SDK's own replay functions) would log every call as an unregistered sink.
 */
export function announceNewEvents(): void {
  const { events } = runContext();
  const lastSeq = events.log?.lastSeq ?? 0;
  if (lastSeq <= events.announcedSeq) return;
  events.announcedSeq = lastSeq;
  if (!workflowInfo().unsafe.isReplaying) announceEvents(lastSeq);
}
