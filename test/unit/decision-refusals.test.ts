import { DecidedCalls } from '../../workflows/state/decision-refusals';

const approve = (toolCallId: string, more: { by?: string; digest?: string } = {}) => ({ decision: 'approve' as const, toolCallId, always: false, ...more });

describe('DecidedCalls: why a decision is refused before its call is looked at', () => {
  it('a second decision names who decided and when; a call asked again under its id is new', () => {
    const decided = new DecidedCalls();
    decided.remember(approve('c1', { by: 'ana' }), '2030-01-07T09:00:00.000Z');
    expect(decided.refusal(approve('c1'), undefined)).toMatchObject({ type: 'already_decided', message: 'call c1 was decided already: approve by ana at 2030-01-07T09:00:00.000Z' });
    decided.forget('c1');
    expect(decided.refusal(approve('c1'), undefined)).toBeUndefined();
  });

  it('a decision made on other arguments names both digests; one without a digest applies to what waits', () => {
    const decided = new DecidedCalls();
    expect(decided.refusal(approve('c1', { digest: 'sha256:aa' }), 'sha256:bb')).toMatchObject({ type: 'stale_digest', message: expect.stringContaining('the decision is for sha256:aa, the call waiting is sha256:bb') });
    expect(decided.refusal(approve('c1', { digest: 'sha256:bb' }), 'sha256:bb')).toBeUndefined();
    expect(decided.refusal(approve('c1'), 'sha256:bb')).toBeUndefined();
  });

  it('remembers the latest 200 decisions', () => {
    const decided = new DecidedCalls();
    for (let i = 0; i < 201; i++) decided.remember(approve(`c${i}`), 't');
    expect(decided.refusal(approve('c0'), undefined)).toBeUndefined();
    expect(decided.refusal(approve('c1'), undefined)?.type).toBe('already_decided');
  });
});
