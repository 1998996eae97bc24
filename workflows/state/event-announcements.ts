/**
 * Followers of a run read its events query; a worker's announcement that the log grew lets them
 * read at once instead of at their next paced read (client/poll-pacing.ts). After each activation
 * (the bundle's internals interceptor, boundary-interceptors.ts), a run whose log grew tells the
 * worker through a sink: no command, nothing in history, and not called on replay.
 *
 * An activation that leaves one of the run's local activities in flight announces nothing: its
 * workflow task goes on (the worker runs the activity and activates the run again), and the
 * server holds a query to the run until the task completes, so a follower woken then would wait
 * for the same task. The activation that ends the task announces every event since. A run of
 * local tools thus makes one sink call per workflow task rather than one per tool call: each
 * costs the workflow thread two copies of the run's workflow info, and the worker's main thread
 * one more.
 */
import { workflowInfo } from '@temporalio/workflow';
import { announceEvents } from '../bundle/bundle-sinks';
import { runContext, type RunContext } from '../kernel/run-context';

/** Registers the run's event log for announcements (once per execution). */
export function announceEventsOf(log: { readonly lastSeq: number }): void {
  const { events } = runContext();
  events.log = log;
  events.announcedSeq = log.lastSeq;
}

/**
 * The seq to announce at the end of an activation, or undefined: none when the log did not grow
 * since the last announcement, or while a local activity of the run is in flight, unless the
 * activation ends the execution (`endsExecution`: it completes, fails or continues as new).
 */
export function seqToAnnounce(events: Pick<RunContext['events'], 'log' | 'announcedSeq' | 'localCallsInFlight'>, endsExecution = false): number | undefined {
  const lastSeq = events.log?.lastSeq ?? 0;
  if (lastSeq <= events.announcedSeq || (events.localCallsInFlight > 0 && !endsExecution)) return undefined;
  return lastSeq;
}

/**
 * Announces the log's newest seq if {@link seqToAnnounce} says so. Not while replaying: nobody
 * waits for those events, and a replay worker built without this bundle's sinks (the SDK's own
 * replay functions) would log every call as an unregistered sink.
 */
export function announceNewEvents(endsExecution: boolean): void {
  const { events } = runContext();
  const seq = seqToAnnounce(events, endsExecution);
  if (seq === undefined) return;
  events.announcedSeq = seq;
  if (!workflowInfo().unsafe.isReplaying) announceEvents(seq);
}
