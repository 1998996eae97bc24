import type { RunEvent } from '../../contracts';
import type { SessionRunRecord } from '../../contracts/session';
import { answerMessageId, busyWith, followOf, isOtherSteer, isSteerOf, requeuedRun, resumeTarget } from '../../server/live/session-chat-plan';

const run = (runNumber: number, over: Partial<SessionRunRecord> = {}): SessionRunRecord => ({ runNumber, workflowId: `session-s/run-${runNumber}`, messageId: `m${runNumber}`, status: 'running', ...over });
const applied = (over: Partial<Extract<RunEvent, { type: 'intervention_applied' }>> = {}): RunEvent =>
  ({ seq: 9, at: '2026-11-29T00:00:00.000Z', type: 'intervention_applied', id: 1, source: 'operator', kind: 'inject_message', point: 'before_llm', detail: 'user message injected', ...over }) as RunEvent;

describe('what a session chat response shows for each decision about its message (server/live/session-chat-plan.ts)', () => {
  it('enqueue (or no run active): the run of its own, from its start', () => {
    expect(followOf(run(2, { messageId: 'u2', status: 'queued' }), 'u2')).toEqual({ type: 'run', workflowId: 'session-s/run-2', runNumber: 2, delivery: 'queued' });
  });

  it('interrupt and rollback (and a steer the ending run cannot take): the run that goes next, from its start', () => {
    expect(followOf(run(2, { messageId: 'u2', status: 'queued', delivery: 'next' }), 'u2')).toEqual({ type: 'run', workflowId: 'session-s/run-2', runNumber: 2, delivery: 'next' });
  });

  it('steer: the active run, from the event that shows its planner took the message', () => {
    expect(followOf(run(1, { messageId: 'u2', delivery: 'steered' }), 'u2')).toEqual({ type: 'steered', workflowId: 'session-s/run-1', runNumber: 1 });
  });

  it("a retried message follows what it became: its own run again, or the run it was steered into (whose record names the run's own message)", () => {
    expect(followOf(run(1, { messageId: 'u1', status: 'completed' }), 'u1')).toMatchObject({ type: 'run', workflowId: 'session-s/run-1' });
    expect(followOf(run(1, { messageId: 'u1', status: 'completed' }), 'u2')).toEqual({ type: 'steered', workflowId: 'session-s/run-1', runNumber: 1 });
    expect(followOf(run(3, { messageId: 'u3', status: 'dropped' }), 'u3')).toEqual({ type: 'dropped', workflowId: 'session-s/run-3', runNumber: 3 });
  });

  it('a steer is told by its message id: the own one starts the response, another one ends it', () => {
    expect(isSteerOf(applied({ messageId: 'u2' }), 'u2')).toBe(true);
    expect(isSteerOf(applied({ messageId: 'u3' }), 'u2')).toBe(false);
    expect(isSteerOf(applied(), 'u2')).toBe(false);
    expect(isOtherSteer(applied({ messageId: 'u3' }), 'u2')).toBe(true);
    expect(isOtherSteer(applied({ messageId: 'u2' }), 'u2')).toBe(false);
    // An operator's injected message, or a system prompt override, is part of the run's answer.
    expect(isOtherSteer(applied(), 'u2')).toBe(false);
    expect(isOtherSteer(applied({ messageId: 'u3' }), undefined)).toBe(true);
  });

  it('a steer the run ended before taking: the run the session gave it', () => {
    const runs = [run(1, { status: 'completed' }), run(2, { messageId: 'u2', status: 'queued', delivery: 'next' })];
    expect(requeuedRun(runs, 'u2')).toBe(runs[1]);
    expect(requeuedRun(runs, 'u3')).toBeUndefined();
  });

  it('a resumed chat follows the run that runs, else the next queued, else nothing', () => {
    expect(resumeTarget({ runs: [run(1, { status: 'completed' }), run(2), run(3, { status: 'queued' })] })?.runNumber).toBe(2);
    expect(resumeTarget({ runs: [run(1, { status: 'completed' }), run(2, { status: 'dropped' }), run(3, { status: 'queued' })] })?.runNumber).toBe(3);
    expect(resumeTarget({ runs: [run(1, { status: 'completed' })] })).toBeUndefined();
  });

  it('a refusal is the session being busy only under reject (the message\'s, else the session\'s) with a run running', () => {
    const report = { open: true, whenBusy: 'enqueue' as const, runs: [run(1, { status: 'completed' }), run(2)] };
    expect(busyWith(report, 'reject')?.workflowId).toBe('session-s/run-2');
    expect(busyWith({ ...report, whenBusy: 'reject' }, undefined)?.workflowId).toBe('session-s/run-2');
    expect(busyWith(report, undefined)).toBeUndefined();
    expect(busyWith({ ...report, open: false }, 'reject')).toBeUndefined();
    expect(busyWith({ ...report, runs: [run(1, { status: 'completed' })] }, 'reject')).toBeUndefined();
  });

  it("the answer's message id follows from the user message's: a retry answers in the same message", () => {
    expect(answerMessageId('u2')).toBe(answerMessageId('u2'));
    expect(answerMessageId('u2')).not.toBe(answerMessageId('u3'));
  });
});
