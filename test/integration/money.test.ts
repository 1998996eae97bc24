/**
 * Budgets in money: a worker prices model calls with its price table, a run finalizes when its
 * `maxCost` is spent, a raise lets it go on, and the cost is in results, events and reports.
 */
import type { RunEvent, RunInput } from '../../contracts';
import type { PriceTable } from '../../contracts/pricing';
import { callTools, say, toolCall } from '../../testing/fake-model';
import { formatEvent } from '../../client/format';
import { modelSuite } from '../support/model-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { waitFor } from '../support/wait';

/** Example prices, not current ones: per million tokens. The fake reports 20 prompt and 10 completion tokens a call: 0.04 USD. */
const prices: PriceTable = { currency: 'USD', models: { 'gpt-4o-mini': { inputPerMillion: 1_000, outputPerMillion: 2_000 } } };
const perCall = 0.04;

const suite = modelSuite('money', { prices });

beforeAll(() => {
  // Quotes until the run asks for its final answer (a finalize turn offers no tools); approves what an approval judge asks about.
  suite.fake.respondWith((request) => {
    if (String(request.body?.messages[0]?.content ?? '').startsWith('You review tool calls')) return say('{"verdict": "approve", "confidence": 0.9, "reason": "harmless"}');
    return request.body?.tools?.length ? callTools(toolCall('get_quote', { symbol: 'AAPL' })) : say('spent');
  });
});

function llmRun(extra: Partial<RunInput>): RunInput {
  return { agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Quote AAPL until told to stop' }], sessionState: { watchlist: [] }, ...extra };
}

async function events(workflowId: string): Promise<RunEvent[]> {
  return (await suite.agents.events(workflowId, 0, 1000)).events;
}

describe('budgets in money', () => {
  it('a run finalizes when its cost budget is spent; each model call logs its tokens and cost', async () => {
    const { workflowId } = await suite.agents.start(llmRun({ policy: { maxCost: 0.1 } }));
    const result = await suite.agents.result(workflowId);

    expect(result.status).toBe('completed');
    expect(result.finalizeReason).toBe('cost_budget');
    // Three calls reach 0.12 ≥ 0.1; the finalize turn is a fourth.
    expect(result.cost.modelCalls.used).toBe(4);
    expect(result.cost.cost).toMatchObject({ max: 0.1, currency: 'USD' });
    expect(result.cost.cost?.used).toBeCloseTo(4 * perCall, 10);
    expect(result.cost.cost?.unknownCalls).toBeUndefined();
    const log = await events(workflowId);
    const usage = log.filter((e): e is Extract<RunEvent, { type: 'model_usage' }> => e.type === 'model_usage');
    expect(usage).toHaveLength(4);
    expect(usage[0]).toMatchObject({ turn: 0, model: 'gpt-4o-mini', modelCalls: 1, tokens: 30, cost: { currency: 'USD' } });
    expect(log.find((e) => e.type === 'finalize_requested')).toMatchObject({ reason: 'cost_budget', message: expect.stringContaining('cost budget of 0.1 USD is spent') });
  });

  it('a raise while it runs lets it go on to the new cap', async () => {
    const { workflowId } = await suite.agents.start(llmRun({ policy: { maxCost: 0.05 }, breakpoints: [{ point: 'after_tool', once: true }] }));
    await waitFor('the run holds after its first tool turn', async () => ((await suite.agents.status(workflowId)).status === 'paused' ? true : undefined));
    const cost = await suite.agents.setBudget(workflowId, { maxCost: 0.15 });
    expect(cost.cost).toMatchObject({ max: 0.15, currency: 'USD' });
    await suite.agents.resume(workflowId);
    const result = await suite.agents.result(workflowId);

    expect(result.finalizeReason).toBe('cost_budget');
    // Four calls reach 0.16 ≥ 0.15, then the finalize turn.
    expect(result.cost.modelCalls.used).toBe(5);
    expect((await events(workflowId)).filter((e) => e.type === 'budget_changed')).toEqual([expect.objectContaining({ change: { maxCost: 0.15 } })]);
  });

  it("a parent's cost budget bounds its sub-agent run, whose cost adds up in the parent", async () => {
    const steps = [{ type: 'tool_calls', calls: [{ id: 'ask', name: 'ask_quoter', args: { task: 'Quote AAPL until told to stop' } }] }, { type: 'final', text: 'asked', reportObservations: true }];
    const { workflowId } = await suite.agents.start({ agent: 'llm-delegator', messages: [{ role: 'user', content: 'delegate' }], plannerOptions: { steps }, policy: { maxCost: 0.06 } });
    const result = await suite.agents.result(workflowId);
    const [call] = result.final?.structured as unknown as { result: { workflowId: string } }[];
    const child = await suite.agents.result(call!.result.workflowId);

    // The child may spend what the parent has left: two calls reach 0.08 ≥ 0.06, then its finalize turn.
    expect(child.finalizeReason).toBe('cost_budget');
    expect(child.cost.cost).toMatchObject({ max: 0.06, currency: 'USD' });
    expect(child.cost.modelCalls.used).toBe(3);
    expect(result.cost.cost?.used).toBeCloseTo(3 * perCall, 10);
    expect(result.cost.cost?.currency).toBe('USD');
  });

  it("a session adds up its runs' tokens and cost", async () => {
    const sessionId = `money-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'watchlist-llm', sessionState: { watchlist: [] }, policy: { maxCost: 0.05 } });
    for (const content of ['Quote AAPL', 'Quote it again']) {
      const { workflowId } = await suite.agents.sendMessage(sessionId, { content });
      expect((await suite.agents.result(workflowId)).finalizeReason).toBe('cost_budget');
    }
    // A run's result is ready a moment before its session takes it in.
    const report = await waitFor('the session took in both runs', async () => {
      const r = await suite.agents.session(sessionId).status();
      return r.runs.length === 2 && r.runs.every((run) => run.status !== 'running' && run.status !== 'queued') ? r : undefined;
    });
    // Two calls each reach 0.08 ≥ 0.05, the finalize turn is a third: 3 calls, 90 tokens a run.
    expect(report.usage).toMatchObject({ runs: 2, tokens: 180, currency: 'USD', costUnknownCalls: 0 });
    expect(report.usage?.cost).toBeCloseTo(6 * perCall, 10);
    expect(report.runs.map((r) => [r.tokens, r.cost?.currency])).toEqual([[90, 'USD'], [90, 'USD']]);
    await suite.agents.closeSession(sessionId);
  });

  it("an approval judge's model call is the run's: its tokens and cost count in the run's budgets, and its model_usage names the judge", async () => {
    const rules = { version: 'j1', rules: [{ id: 'ask-the-model', effect: 'judge' as const, tools: ['echo'], judge: { evaluator: 'model-judge' } }] };
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'echo', args: { text: 'first' } }), callStep({ name: 'echo', args: { text: 'second' } }), finalStep('done')], {
        confirmation: { tools: ['echo'], rules },
        policy: { maxCost: 0.03 },
      }),
    );
    const result = await suite.agents.result(workflowId);
    // The scripted planner asks no model: the judge's one call (0.04) spends the 0.03 before the second echo is planned.
    expect(result.finalizeReason).toBe('cost_budget');
    expect(result.cost.modelCalls.used).toBe(1);
    expect(result.cost.tokens.used).toBe(30);
    expect(result.cost.cost).toMatchObject({ max: 0.03, currency: 'USD' });
    expect(result.cost.cost?.used).toBeCloseTo(perCall, 10);
    const log = await events(workflowId);
    const usage = log.filter((e): e is Extract<RunEvent, { type: 'model_usage' }> => e.type === 'model_usage');
    expect(usage).toEqual([expect.objectContaining({ turn: 0, judge: 'model-judge', model: 'gpt-4o-mini', modelCalls: 1, tokens: 30, cost: { amount: expect.closeTo(perCall, 10), currency: 'USD' } })]);
    expect(formatEvent(usage[0]!)).toContain('turn 0 judge model-judge gpt-4o-mini: 30 tokens, cost 0.04 USD');
    expect(log.find((e) => e.type === 'approval_decided')).toMatchObject({ toolCallId: 'call_0_0', decision: 'approve', by: 'judge model-judge (rules j1/ask-the-model)' });
  });

  it('a cost budget that is not a positive amount is refused, naming the field', async () => {
    await expect(suite.agents.start(llmRun({ policy: { maxCost: -1 } }))).rejects.toThrow(/maxCost/);
    const { workflowId } = await suite.agents.start(llmRun({ policy: { maxCost: 1 }, breakpoints: [{ point: 'after_llm', once: true }] }));
    await waitFor('the run holds after its plan', async () => ((await suite.agents.status(workflowId)).status === 'paused' ? true : undefined));
    await expect(suite.agents.setBudget(workflowId, { maxCost: 0 })).rejects.toThrow(/maxCost/);
    await suite.agents.kill(workflowId, { reason: 'done' });
  });
});
