import { activeRun, mergeSessionEvents, sessionEventLine, sessionOfRun } from '../../dashboard/session-view';
import type { SessionEvent, SessionReport } from '../../dashboard/types';

const at = '2026-11-29T13:00:00.000Z';
const taken = (seq: number, messageId: string): SessionEvent => ({ seq, at, type: 'message_taken', messageId, runNumber: seq, delivery: 'queued', whenBusy: 'enqueue' });

describe("the dashboard's session page", () => {
  it('finds the session of a session run by its workflow id, and nothing for another run', () => {
    expect(sessionOfRun('session-shop-42/run-3')).toEqual({ sessionId: 'shop-42', runNumber: 3 });
    expect(sessionOfRun('session-a/b/run-12')).toEqual({ sessionId: 'a/b', runNumber: 12 });
    expect(sessionOfRun('run-7')).toBeUndefined();
    expect(sessionOfRun('session-shop-42')).toBeUndefined();
  });

  it("takes the session's running run as its active one", () => {
    const report = { runs: [{ runNumber: 1, workflowId: 'w1', status: 'completed' }, { runNumber: 2, workflowId: 'w2', status: 'running' }, { runNumber: 3, workflowId: 'w3', status: 'queued' }] } as SessionReport;
    expect(activeRun(report)?.runNumber).toBe(2);
    expect(activeRun({ ...report, runs: report.runs.slice(0, 1) })).toBeUndefined();
    expect(activeRun(undefined)).toBeUndefined();
  });

  it('keeps each event once, in seq order, when a reconnect sends some again', () => {
    const known = [taken(1, 'a'), taken(2, 'b')];
    expect(mergeSessionEvents(known, [taken(2, 'b'), taken(3, 'c')]).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(mergeSessionEvents(known, [taken(1, 'a')])).toBe(known);
    expect(mergeSessionEvents([], [taken(5, 'e'), taken(4, 'd')]).map((e) => e.seq)).toEqual([4, 5]);
  });

  it('says what each decision was, naming the message and the run', () => {
    expect(sessionEventLine(taken(1, 'order-7'))).toBe('message order-7 queued as run #1 (whenBusy enqueue)');
    expect(sessionEventLine({ seq: 2, at, type: 'queue_edited', action: 'drop', messageId: 'order-8', reason: 'sent twice' })).toBe('queue: dropped message order-8 (sent twice)');
    expect(sessionEventLine({ seq: 3, at, type: 'queue_edited', action: 'front', messageId: 'order-7' })).toBe('queue: moved to front message order-7');
    expect(sessionEventLine({ seq: 4, at, type: 'run_ended', runNumber: 1, status: 'terminated', endedBy: 'interrupt' })).toBe('run #1 ended terminated (interrupt)');
    expect(sessionEventLine({ seq: 5, at, type: 'steer_requeued', messageId: 's', fromRun: 1, runNumber: 5 })).toBe('message s not seen by run #1: runs as #5');
  });
});
