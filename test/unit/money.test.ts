import { callCost, priceOf, priceTableSchema, type PriceTable } from '../../contracts/pricing';
import { defaultRunPolicy } from '../../contracts/run';
import { withCost } from '../../activities/model/model-activity';
import { addModelUsage, costReport, emptyUsage, reachedCap } from '../../workflows/state/budget';
import { childPolicy, withChildUsage } from '../../workflows/calls/sub-agent';
import { withRunUsage } from '../../contracts/session';
import type { CostReport } from '../../contracts/run';
import type { ToolDefinition } from '../../contracts/tool-definition';

/** Example prices (not current ones), per million tokens. */
const table: PriceTable = { currency: 'USD', models: { small: { inputPerMillion: 0.15, cachedInputPerMillion: 0.075, outputPerMillion: 0.6 } } };
const usage = { promptTokens: 1_000_000, completionTokens: 500_000, totalTokens: 1_500_000 };

describe('pricing a model call', () => {
  it('charges prompt, cached prompt and completion tokens at their prices', () => {
    expect(callCost(usage, table.models.small!)).toBeCloseTo(0.15 + 0.3, 12);
    expect(callCost({ ...usage, cachedPromptTokens: 400_000 }, table.models.small!)).toBeCloseTo(0.6 * 0.15 + 0.4 * 0.075 + 0.3, 12);
    // Cached tokens without a price of their own cost the input price; more cached than prompt is capped.
    expect(callCost({ promptTokens: 10, completionTokens: 0, cachedPromptTokens: 50 }, { inputPerMillion: 1, outputPerMillion: 1 })).toBeCloseTo(10 / 1_000_000, 15);
  });

  it('finds a price by the model the run asked for, else by the one the provider answered with', () => {
    expect(priceOf(table, 'small')).toBe(table.models.small);
    expect(priceOf(table, 'alias', 'small')).toBe(table.models.small);
    expect(priceOf(table, 'other', 'unknown')).toBeUndefined();
  });

  it('gives an answer its cost only when its model is priced and its usage known', () => {
    const answer = { toolCalls: [], usage, model: 'small-2026' };
    expect(withCost(answer, 'small', table).cost).toEqual({ amount: expect.closeTo(0.45, 12), currency: 'USD' });
    expect(withCost(answer, 'large', table).cost).toBeUndefined();
    expect(withCost({ toolCalls: [] }, 'small', table).cost).toBeUndefined();
    expect(withCost(answer, 'small', undefined).cost).toBeUndefined();
  });

  it('refuses a price table without a currency code, naming the field', () => {
    const result = priceTableSchema().safeParse({ currency: 'dollars', models: {} });
    expect(result.error?.issues[0]?.path).toEqual(['currency']);
  });
});

describe('money in a run', () => {
  it('adds priced calls, counts unpriced ones and calls of another currency as unknown', () => {
    let u = addModelUsage(emptyUsage(), { tokens: 30, modelCalls: 1, cost: { amount: 0.25, currency: 'USD' } });
    u = addModelUsage(u, { tokens: 30, modelCalls: 1 });
    u = addModelUsage(u, { tokens: 30, modelCalls: 1, cost: { amount: 9, currency: 'EUR' } });
    u = addModelUsage(u, { tokens: 0, modelCalls: 1, tokensUnknown: true, cost: { amount: 0.5, currency: 'USD' } });
    expect(u).toMatchObject({ tokens: 90, modelCalls: 4, cost: 0.75, costCurrency: 'USD', costUnknownCalls: 2, tokensUnknownCalls: 1 });
    expect(costReport(u, { ...defaultRunPolicy, maxCost: 2 }, 0).cost).toEqual({ used: 0.75, max: 2, remaining: 1.25, currency: 'USD', unknownCalls: 2 });
  });

  it('a spent cost budget is a cap; unknown calls never spend it', () => {
    const policy = { ...defaultRunPolicy, maxCost: 1 };
    expect(reachedCap({ ...emptyUsage(), cost: 0.99 }, policy, 0)).toBeUndefined();
    expect(reachedCap({ ...emptyUsage(), cost: 1 }, policy, 0)).toBe('cost_budget');
    expect(reachedCap({ ...emptyUsage(), costUnknownCalls: 1_000 }, policy, 0)).toBeUndefined();
  });

  it("a child's allowance is what the parent has left, and its cost adds up in the parent's currency", () => {
    const tool = { subAgent: { agent: 'child', allowance: { maxCost: 5 } } } as unknown as ToolDefinition;
    const host = { policy: { ...defaultRunPolicy, maxCost: 2 }, usage: { ...emptyUsage(), cost: 1.5 }, remainingTimeMs: () => 60_000 };
    expect(childPolicy(tool, host).maxCost).toBeCloseTo(0.5, 12);
    expect(childPolicy({ subAgent: { agent: 'child', allowance: { maxCost: 0.1 } } } as unknown as ToolDefinition, host).maxCost).toBe(0.1);
    expect(childPolicy(tool, { ...host, usage: { ...emptyUsage(), cost: 3 } }).maxCost).toBeGreaterThan(0);
    expect(childPolicy(tool, { ...host, policy: defaultRunPolicy }).maxCost).toBe(5);

    const parent = { ...emptyUsage(), cost: 1, costCurrency: 'USD' };
    expect(withChildUsage(parent, { tokens: 10, modelCalls: 2, toolCalls: 1, cost: { used: 0.5, currency: 'USD', unknownCalls: 1 } })).toMatchObject({ cost: 1.5, costCurrency: 'USD', costUnknownCalls: 1, modelCalls: 2 });
    expect(withChildUsage(parent, { tokens: 10, modelCalls: 2, toolCalls: 1, cost: { used: 3, currency: 'EUR' } })).toMatchObject({ cost: 1, costUnknownCalls: 2 });
    expect(withChildUsage(emptyUsage(), { tokens: 0, modelCalls: 0, toolCalls: 1 })).toEqual({ ...emptyUsage(), toolCalls: 1 });
  });
});

describe('money in a session', () => {
  const report = (cost: Record<string, unknown> | undefined, modelCalls = 2): CostReport =>
    ({ tokens: { used: 100 }, modelCalls: { used: modelCalls }, ...(cost ? { cost } : {}) }) as unknown as CostReport;

  it("adds up its runs' tokens and money; runs without prices or in another currency count their calls as unknown", () => {
    let u = withRunUsage(undefined, report({ used: 0.5, currency: 'USD' }));
    u = withRunUsage(u, report({ used: 0.25, currency: 'USD', unknownCalls: 1 }));
    u = withRunUsage(u, report({ used: 3, currency: 'EUR' }, 3));
    u = withRunUsage(u, report(undefined, 4));
    expect(u).toEqual({ runs: 4, tokens: 400, cost: 0.75, currency: 'USD', costUnknownCalls: 1 + 3 + 4 });
  });
});
