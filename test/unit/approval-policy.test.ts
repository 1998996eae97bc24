import { approvalRulesSchema, predicateHolds, ruleVerdict, type ApprovalRules, type ArgumentPredicate } from '../../contracts/approval-policy';

const rules: ApprovalRules = approvalRulesSchema().parse({
  version: 'payments-7',
  rules: [
    { id: 'small-transfers', effect: 'allow', tools: ['transfer'], args: [{ path: 'amount', op: 'lte', value: 100 }] },
    { id: 'blocked-payee', effect: 'deny', tools: ['transfer'], args: [{ path: 'to', op: 'in', value: ['mallory', 'eve'] }], reason: 'payee is blocked' },
    { id: 'vip-session', effect: 'allow', tools: ['transfer'], sessions: ['vip-1'] },
    { id: 'reads', effect: 'allow', tools: ['get_*'] },
    { id: 'deletes-ask', effect: 'ask', tools: ['delete_*'], agents: ['notes'] },
  ],
});
const call = (name: string, args: unknown, more: { agent?: string; sessionId?: string } = {}) => ({ name, args, agent: more.agent ?? 'payments', ...(more.sessionId ? { sessionId: more.sessionId } : {}) });

describe('approval rules: the first rule that matches decides', () => {
  it.each([
    ['a small transfer is allowed', call('transfer', { to: 'acme', amount: 50 }), { effect: 'allow', rule: 'small-transfers' }],
    ['a small transfer to a blocked payee is still allowed: the first match wins', call('transfer', { to: 'eve', amount: 50 }), { effect: 'allow', rule: 'small-transfers' }],
    ['a large transfer to a blocked payee is denied, with the reason', call('transfer', { to: 'mallory', amount: 500 }), { effect: 'deny', rule: 'blocked-payee', reason: 'payee is blocked' }],
    ['a large transfer in the VIP session is allowed', call('transfer', { to: 'acme', amount: 500 }, { sessionId: 'vip-1' }), { effect: 'allow', rule: 'vip-session' }],
    ['a large transfer elsewhere matches no rule', call('transfer', { to: 'acme', amount: 500 }), undefined],
    ['a prefix pattern matches a family of tools', call('get_quote', { symbol: 'AAPL' }), { effect: 'allow', rule: 'reads' }],
    ['a rule of one agent does not apply to another', call('delete_note', { id: 1 }, { agent: 'other' }), undefined],
    ['an ask rule forces a person', call('delete_note', { id: 1 }, { agent: 'notes' }), { effect: 'ask', rule: 'deletes-ask' }],
  ])('%s', (_what, c, expected) => {
    const verdict = ruleVerdict(rules, c);
    if (expected === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toEqual({ version: 'payments-7', ...expected });
  });

  it('no rules decide nothing', () => {
    expect(ruleVerdict(undefined, call('transfer', { amount: 1 }))).toBeUndefined();
  });
});

describe('argument predicates', () => {
  const args = { amount: 250, to: { account: 'DE-1' }, items: [{ sku: 'a' }], note: 'x' };
  it.each([
    [{ path: 'amount', op: 'gt', value: 100 }, true],
    [{ path: 'amount', op: 'lt', value: 100 }, false],
    [{ path: 'amount', op: 'gte', value: '100' }, false],
    [{ path: 'to.account', op: 'eq', value: 'DE-1' }, true],
    [{ path: 'items.0.sku', op: 'in', value: ['a', 'b'] }, true],
    [{ path: 'note', op: 'ne', value: 'y' }, true],
    [{ path: 'missing.deep', op: 'exists' }, false],
    [{ path: 'missing', op: 'missing' }, true],
    [{ path: 'missing', op: 'eq', value: null }, false],
  ] as const)('%j holds: %s', (predicate, holds) => {
    expect(predicateHolds(predicate as ArgumentPredicate, args)).toBe(holds);
  });
});
