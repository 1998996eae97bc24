import type { ApprovalJudge } from '../../contracts/approval-judge';

/**
 * Judges of the test workers, for `judge` approval rules: `by-text` reads the `text` argument of
 * an echo call: `ok …` approve, `no …` reject, `maybe …` approve but only 0.2 sure, `unsure …`
 * escalate, `boom …` throws, `slow …` answers after 5 s (past a short timeout).
 */
export const testApprovalJudges: Record<string, ApprovalJudge> = {
  'by-text': async ({ args }) => {
    const text = String((args as { text?: unknown }).text ?? '');
    if (text.startsWith('ok')) return { verdict: 'approve', confidence: 0.9, reason: 'looks fine' };
    if (text.startsWith('no')) return { verdict: 'reject', confidence: 0.95, reason: 'not allowed' };
    if (text.startsWith('maybe')) return { verdict: 'approve', confidence: 0.2 };
    if (text.startsWith('boom')) throw new Error('the judge broke');
    if (text.startsWith('slow')) await new Promise((r) => setTimeout(r, 5_000));
    return { verdict: 'escalate', reason: 'cannot tell' };
  },
};
