import { newAccount, nextWakeAt, periodEnd, step, sweepCandidates, sweepDueAt, viewOf, waitsForSlot, type AccountEvent, type AccountState } from '../../workflows/tenants/account-machine';
import type { TenantQuota } from '../../contracts/tenant-settings';

const t0 = Date.parse('2026-11-29T10:00:00Z');

function run(state: AccountState, events: AccountEvent[], nowMs = t0) {
  const sends = [];
  for (const e of events) {
    const r = step(state, e, nowMs);
    state = r.state;
    sends.push(...r.sends);
  }
  return { state, sends };
}

const join = (workflowId: string, configured: TenantQuota, counts = true): AccountEvent => ({ type: 'join', workflowId, counts, configured });

describe('a tenant account', () => {
  it('admits starts up to the concurrency quota, queues the next in order, and admits them as runs leave', () => {
    const q = { concurrentRuns: 2 };
    const { state, sends } = run(newAccount('acme', q, t0), [join('r1', q), join('r2', q), join('r3', q), join('r4', q)]);
    expect(sends.map((s) => [s.workflowId, s.answer.type])).toEqual([['r1', 'admitted'], ['r2', 'admitted'], ['r3', 'queued'], ['r4', 'queued']]);
    expect(sends[3]!.answer).toEqual({ type: 'queued', position: 2, reason: expect.stringContaining('2 of 2 concurrent runs open (concurrentRuns)') });
    expect(waitsForSlot(state)).toBe(true);
    const after = run(state, [{ type: 'leave', workflowId: 'r1' }]);
    expect(after.sends).toEqual([{ workflowId: 'r3', answer: { type: 'admitted' } }]);
    // A run terminated from outside never leaves: the sweep finds it closed.
    const swept = run(after.state, [{ type: 'closed', workflowIds: ['r2'] }]);
    expect(swept.sends).toEqual([{ workflowId: 'r4', answer: { type: 'admitted' } }]);
    expect(viewOf(swept.state, t0)).toMatchObject({ running: 2, waiting: 0, counters: { admitted: 4, refused: 0 } });
  });

  it('refuses a start over its quota when the policy says refuse, naming the tenant and the quota', () => {
    const q: TenantQuota = { concurrentRuns: 1, whenOver: 'refuse' };
    const { sends, state } = run(newAccount('acme', q, t0), [join('r1', q), join('r2', q)]);
    expect(sends[1]).toEqual({ workflowId: 'r2', answer: { type: 'refused', reason: 'tenant acme has 1 of 1 concurrent runs open (concurrentRuns)' } });
    expect(state.queue).toEqual([]);
    expect(state.counters.refused).toBe(1);
  });

  it('answers a run that joins again (it continued as new) as before, and never counts it twice', () => {
    const q = { concurrentRuns: 1 };
    const { state, sends } = run(newAccount('acme', q, t0), [join('r1', q), join('r1', q), join('r2', q), join('r2', q)]);
    expect(sends.map((s) => s.answer.type)).toEqual(['admitted', 'admitted', 'queued', 'queued']);
    expect(state.queue.length).toBe(1);
  });

  it('lets sub-agent runs in without counting them (a parent waiting for its children would never free its slot)', () => {
    const q = { concurrentRuns: 1 };
    const { state, sends } = run(newAccount('acme', q, t0), [join('root', q), join('child', q, false)]);
    expect(sends.map((s) => s.answer.type)).toEqual(['admitted', 'admitted']);
    expect(viewOf(state, t0)).toMatchObject({ running: 1, openRuns: 2 });
  });

  it('admits starts at the start-rate quota, and says when the bucket has room again', () => {
    const q = { startsPerMinute: 2 };
    const { state, sends } = run(newAccount('acme', q, t0), [join('r1', q), join('r2', q), join('r3', q)]);
    expect(sends.map((s) => s.answer.type)).toEqual(['admitted', 'admitted', 'queued']);
    expect(nextWakeAt(state, t0)).toBe(t0 + 30_000);
    expect(run(state, [{ type: 'tick' }], t0 + 29_000).sends).toEqual([]);
    expect(run(state, [{ type: 'tick' }], t0 + 30_000).sends).toEqual([{ workflowId: 'r3', answer: { type: 'admitted' } }]);
  });

  it("holds every open run when the day's money is spent, and releases them when the day rolls over or the quota is raised", () => {
    const q = { costPerDay: 1 };
    let { state, sends } = run(newAccount('acme', q, t0), [join('r1', q), join('child', q, false), { type: 'usage', workflowId: 'r1', tokens: 100, modelCalls: 1, cost: 0.6, currency: 'USD' }]);
    expect(sends.map((s) => s.answer.type)).toEqual(['admitted', 'admitted']);
    ({ state, sends } = run(state, [{ type: 'usage', workflowId: 'child', tokens: 100, modelCalls: 1, cost: 0.5, currency: 'USD' }]));
    const hold = { limit: 'costPerDay', reason: 'tenant acme has used 1.1 of 1 USD in 2026-11-29 (costPerDay)', until: '2026-11-30T00:00:00.000Z' };
    expect(sends).toEqual([{ workflowId: 'r1', answer: { type: 'held', hold } }, { workflowId: 'child', answer: { type: 'held', hold } }]);
    // A run that joins while held learns it with its admission.
    expect(run(state, [join('r2', q)]).sends).toEqual([{ workflowId: 'r2', answer: { type: 'admitted', hold } }]);
    expect(nextWakeAt(state, t0)).toBe(Date.parse('2026-11-30T00:00:00Z'));
    const nextDay = run(state, [{ type: 'tick' }], Date.parse('2026-11-30T00:00:00Z'));
    expect(nextDay.sends.map((s) => s.answer)).toEqual([{ type: 'released' }, { type: 'released' }]);
    expect(viewOf(nextDay.state, Date.parse('2026-11-30T00:00:00Z')).day).toMatchObject({ period: '2026-11-30', cost: 0 });
    expect(viewOf(nextDay.state, Date.parse('2026-11-30T00:00:00Z')).month).toMatchObject({ period: '2026-11', cost: 1.1, tokens: 200, modelCalls: 2 });
    const raised = run(state, [{ type: 'set_quota', quota: { costPerDay: 5 } }]);
    expect(raised.sends.map((s) => s.answer)).toEqual([{ type: 'released' }, { type: 'released' }]);
  });

  it('counts calls of another currency or without a cost apart, as of unknown cost', () => {
    const q = {};
    const { state } = run(newAccount('acme', q, t0), [
      { type: 'usage', workflowId: 'r', tokens: 10, modelCalls: 1, cost: 1, currency: 'USD' },
      { type: 'usage', workflowId: 'r', tokens: 10, modelCalls: 1, cost: 1, currency: 'EUR' },
      { type: 'usage', workflowId: 'r', tokens: 0, modelCalls: 2, tokensUnknownCalls: 2 },
    ]);
    expect(state.day).toEqual({ period: '2026-11-29', tokens: 20, modelCalls: 4, tokensUnknownCalls: 2, cost: 1, currency: 'USD', costUnknownCalls: 3 });
  });

  it('a quota change live admits waiting starts; a reset goes back to the deployment quota', () => {
    const q = { concurrentRuns: 1 };
    let { state } = run(newAccount('acme', q, t0), [join('r1', q), join('r2', q)]);
    const raised = run(state, [{ type: 'set_quota', quota: { concurrentRuns: 3 } }]);
    expect(raised.sends).toEqual([{ workflowId: 'r2', answer: { type: 'admitted' } }]);
    ({ state } = run(raised.state, [{ type: 'set_quota', quota: null }]));
    expect(viewOf(state, t0)).toMatchObject({ quota: { concurrentRuns: 1 }, running: 2 });
    expect(viewOf(state, t0).override).toBeUndefined();
  });

  it('ends periods at the next UTC day and month', () => {
    expect(new Date(periodEnd('2026-12-31')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(new Date(periodEnd('2026-12')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('looks for runs gone without leaving each minute while starts wait, every ten minutes while runs are open, never with none; oldest first', () => {
    const q = { concurrentRuns: 1 };
    expect(sweepDueAt(newAccount('acme', q, t0), t0)).toBeUndefined();
    const one = run(newAccount('acme', q, t0), [join('old', q)]).state;
    expect(sweepDueAt(one, t0)).toBe(t0 + 600_000);
    const waiting = run(one, [join('late', q, true)], t0 + 5).state;
    expect(sweepDueAt(waiting, t0)).toBe(t0 + 60_000);
    const members = run(one, [join('child-b', q, false)], t0 + 9).state;
    const more = run(members, [join('child-a', q, false)], t0 + 7).state;
    expect(sweepCandidates(more, 2)).toEqual(['old', 'child-a']);
  });
});
