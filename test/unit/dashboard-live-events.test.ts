import { addDelta, mergeEvents, resetEvents, settle } from '../../dashboard/timeline-state';
import type { RunEvent } from '../../contracts';

const note = (seq: number, text = `e${seq}`): RunEvent => ({ seq, at: '2026-01-01T00:00:00.000Z', type: 'pause_requested', reason: text });

/** How the dashboard folds the live stream (run events, resets, token deltas) into its timeline. */
describe('the dashboard timeline', () => {
  it('keeps events in seq order and replaces a replayed event instead of showing it twice', () => {
    const events = [note(2), note(1), note(2, 'replayed')].reduce<RunEvent[]>(mergeEvents, []);
    expect(events.map((e) => [e.seq, (e as { reason: string }).reason])).toEqual([
      [1, 'e1'],
      [2, 'replayed'],
    ]);
  });

  it('drops the events a rewind replaced (reset from fromSeq on)', () => {
    expect(resetEvents([note(1), note(2), note(3)], 2).map((e) => e.seq)).toEqual([1]);
  });

  it('appends token deltas to the text of their model call, and a retried call starts over', () => {
    const delta = (activityId: string, attempt: number, text: string, kind: 'text' | 'tool-args' = 'text') => ({ activityId, attempt, seq: 0, turn: 1, kind, text, ...(kind === 'tool-args' ? { toolCallId: 'c1', toolName: 'echo' } : {}) });
    const streaming = [delta('a', 1, 'Hel'), delta('b', 1, '{"x"', 'tool-args'), delta('a', 1, 'lo'), delta('c', 1, 'first try'), delta('c', 2, 'sec'), delta('c', 1, 'late'), delta('c', 2, 'ond')].reduce(addDelta, []);
    expect(streaming.map((s) => [s.key, s.text])).toEqual([
      ['a', 'Hello'],
      ['b/c1', '{"x"'],
      ['c', 'second'],
    ]);
  });

  it("stops showing a call's text once the plan of its turn is in the log", () => {
    const streaming = [{ activityId: 'a', attempt: 1, seq: 0, turn: 1, kind: 'text' as const, text: 'x' }, { activityId: 'b', attempt: 1, seq: 0, turn: 2, kind: 'text' as const, text: 'y' }].reduce(addDelta, []);
    const plan: RunEvent = { seq: 5, at: '2026-01-01T00:00:00.000Z', type: 'plan', turn: 1, decision: 'final' };
    expect(settle(streaming, plan).map((s) => s.key)).toEqual(['b']);
  });
});
