import { addDelta, mergeEvents, resetEvents } from '../../dashboard/timeline-state';
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

  it('appends token deltas to the text of their model call', () => {
    const streaming = [
      { callId: 'a', turn: 1, kind: 'text' as const, text: 'Hel' },
      { callId: 'b', turn: 1, kind: 'tool-args' as const, text: '{"x"' },
      { callId: 'a', turn: 1, kind: 'text' as const, text: 'lo' },
    ].reduce(addDelta, []);
    expect(streaming.map((s) => [s.key, s.text])).toEqual([
      ['a', 'Hello'],
      ['b', '{"x"'],
    ]);
  });
});
