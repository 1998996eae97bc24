import { afterRun, decideBusy, nextPosition, type ActiveRun } from '../../workflows/sessions/busy-policy';

const activeRun = (over: Partial<ActiveRun> = {}): ActiveRun => ({ runNumber: 3, workflowId: 'session-s/run-3', nextCount: 0, steers: [], ...over });

describe('what a session does with a message while a run is active (workflows/sessions/busy-policy.ts)', () => {
  it('with no run active every message is queued, whatever its policy', () => {
    for (const policy of ['enqueue', 'reject', 'interrupt', 'rollback', 'steer'] as const) expect(decideBusy(undefined, policy)).toEqual({ type: 'enqueue' });
  });

  it('while a run is active: enqueue queues, reject refuses naming the run, interrupt and rollback end it, steer goes into it', () => {
    const active = activeRun();
    expect(decideBusy(active, 'enqueue')).toEqual({ type: 'enqueue' });
    expect(decideBusy(active, 'reject')).toEqual({ type: 'reject', active });
    expect(decideBusy(active, 'interrupt')).toEqual({ type: 'end_active', active, how: 'interrupt' });
    expect(decideBusy(active, 'rollback')).toEqual({ type: 'end_active', active, how: 'rollback' });
    expect(decideBusy(active, 'steer')).toEqual({ type: 'steer', active });
  });

  it('a run that is ending already is not ended twice and takes no steer: those messages run after it, in order', () => {
    const ending = activeRun({ ending: 'interrupt', nextCount: 1 });
    expect(decideBusy(ending, 'interrupt')).toEqual({ type: 'next', active: ending });
    expect(decideBusy(ending, 'rollback')).toEqual({ type: 'next', active: ending });
    expect(decideBusy(ending, 'steer')).toEqual({ type: 'next', active: ending });
    // Reject and enqueue do not care.
    expect(decideBusy(ending, 'reject').type).toBe('reject');
    expect(decideBusy(ending, 'enqueue').type).toBe('enqueue');
    expect(nextPosition(ending)).toBe(1);
  });

  it("a run's end: steered messages its planner saw join the conversation, the others run next; none is lost", () => {
    const steers = [
      { messageId: 'a', content: 'first' },
      { messageId: 'b', content: 'second' },
    ];
    expect(afterRun(activeRun({ steers }), { steered: ['a'] })).toEqual({ keep: true, delivered: [steers[0]], requeued: [steers[1]] });
    // It failed: nothing is kept, every steer runs next.
    expect(afterRun(activeRun({ steers }), undefined)).toEqual({ keep: false, delivered: [], requeued: steers });
    // Rolled back: what it did is discarded, also the steers it saw; they run again.
    expect(afterRun(activeRun({ steers, ending: 'rollback' }), { steered: ['a', 'b'] })).toEqual({ keep: false, delivered: [], requeued: steers });
    // Interrupted: kept, as far as it went.
    expect(afterRun(activeRun({ steers, ending: 'interrupt' }), { steered: ['b'] })).toEqual({ keep: true, delivered: [steers[1]], requeued: [steers[0]] });
  });
});
