import { WakeCoalescer, type WakeDecision } from '../../server/live/wake-coalescer';

/** Drives a coalescer as a follower does: wakes at the given times, deferred wakes firing when due. Answers the times of the reads. */
function reads(coalescer: WakeCoalescer, announcements: readonly number[]): number[] {
  const done: number[] = [];
  let timerAt: number | undefined;
  for (const at of announcements) {
    if (timerAt !== undefined && timerAt <= at) {
      coalescer.fired(timerAt);
      done.push(timerAt);
      timerAt = undefined;
    }
    const decision: WakeDecision = coalescer.wake(at);
    if (decision.type === 'now') done.push(at);
    if (decision.type === 'later') timerAt = at + decision.inMs;
  }
  if (timerAt !== undefined) {
    coalescer.fired(timerAt);
    done.push(timerAt);
  }
  return done;
}

describe('coalescing announcements of new events', () => {
  it('lets the first announcement through at once', () => {
    expect(new WakeCoalescer(250).wake(1_000)).toEqual({ type: 'now' });
  });

  it('defers one that comes too soon after the last wake to the end of the interval, and folds later ones into it', () => {
    const coalescer = new WakeCoalescer(250);
    coalescer.wake(1_000);
    expect(coalescer.wake(1_010)).toEqual({ type: 'later', inMs: 240 });
    expect(coalescer.wake(1_020)).toEqual({ type: 'coalesced' });
    coalescer.fired(1_250);
    expect(coalescer.wake(1_260)).toEqual({ type: 'later', inMs: 240 });
  });

  it('a flood of a thousand announcements a second makes four reads a second, the last announcement still read', () => {
    const flood = Array.from({ length: 1_000 }, (_, i) => i);
    const done = reads(new WakeCoalescer(250), flood);
    expect(done).toEqual([0, 250, 500, 750, 1_000]);
  });

  it('announcements further apart than the interval each read at once', () => {
    expect(reads(new WakeCoalescer(250), [0, 300, 700, 2_000])).toEqual([0, 300, 700, 2_000]);
  });

  it('a cancelled deferred wake no longer holds later ones back', () => {
    const coalescer = new WakeCoalescer(250);
    coalescer.wake(0);
    coalescer.wake(10);
    coalescer.cancel();
    expect(coalescer.wake(300)).toEqual({ type: 'now' });
  });
});
