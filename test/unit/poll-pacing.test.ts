import { PollPacing } from '../../client/poll-pacing';

describe('a follower paces its reads', () => {
  it('waits less after news and longer while the run is quiet, up to its longest wait', async () => {
    const pacing = new PollPacing({ minMs: 5, maxMs: 40 });
    const waited: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await pacing.wait();
      waited.push(performance.now() - started);
    }
    expect(pacing.quiet).toBe(true);
    // Waits at the longest delay so far: the 4th and 5th; the closed check comes every third.
    expect(pacing.dueForClosedCheck).toBe(false);
    // 5, 10, 20, 40, 40 ms: each at least its delay (timers never fire early).
    expect(waited.map((ms, i) => ms >= [5, 10, 20, 40, 40][i]! - 1)).toEqual([true, true, true, true, true]);
    await pacing.wait();
    expect(pacing.dueForClosedCheck).toBe(true);
    pacing.news();
    expect(pacing.quiet).toBe(false);
    expect(pacing.dueForClosedCheck).toBe(false);
  });

  it('a wake ends the wait in progress at once, and one that comes between waits ends the next', async () => {
    const pacing = new PollPacing({ minMs: 60_000, maxMs: 60_000 });
    const waiting = pacing.wait();
    pacing.wake();
    await waiting;
    pacing.wake();
    await pacing.wait();
  });

  it('an aborted signal ends the wait', async () => {
    const pacing = new PollPacing({ minMs: 60_000, maxMs: 60_000 });
    const abort = new AbortController();
    const waiting = pacing.wait(abort.signal);
    abort.abort();
    await waiting;
    await pacing.wait(abort.signal);
  });
});
