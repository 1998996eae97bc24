import OpenAI from 'openai';
import { modelJudge } from '../../activities/model-judge';
import { pricedJudgement } from '../../activities/approval-judges';
import { judgeUsageReport } from '../../workflows/calls/approval-judging';
import type { ApprovalJudgeRequest } from '../../contracts/approval-judge';
import { FakeOpenAIServer, say } from '../../testing/fake-model';

/** The judge asks a real `openai` client, against a local OpenAI-compatible server. */
describe('modelJudge', () => {
  let fake: FakeOpenAIServer;
  beforeAll(async () => {
    fake = await FakeOpenAIServer.start();
  });
  afterAll(() => fake.close());

  const request: ApprovalJudgeRequest = { evaluator: 'model', workflowId: 'run-1', agent: 'payments', toolCallId: 'c1', name: 'transfer', args: { to: 'acme', amount: 50 }, digest: 'sha256:x', rules: { version: 'v', rule: 'r' } };
  const judge = () => modelJudge({ openai: new OpenAI({ baseURL: fake.baseURL, apiKey: 'test', maxRetries: 0 }), model: 'judge-model' });

  it('asks the model with the call and reads its JSON verdict', async () => {
    fake.respondWith(() => say('```json\n{"verdict": "approve", "confidence": 0.85, "reason": "a small payment to a known payee"}\n```'));
    // With the model call's usage: the run counts it in its budgets.
    expect(await judge()(request)).toEqual({
      verdict: 'approve',
      confidence: 0.85,
      reason: 'a small payment to a known payee',
      usage: { model: 'judge-model', promptTokens: 20, completionTokens: 10, totalTokens: 30 },
    });
    const asked = fake.chatRequests.at(-1)?.body?.messages.at(-1);
    expect(JSON.parse(String(asked?.content))).toEqual({ agent: 'payments', tool: 'transfer', arguments: { to: 'acme', amount: 50 } });
  });

  it('throws on an answer that is not a judgement, so a person is asked', async () => {
    fake.respondWith(() => say('I think it is fine.'));
    await expect(judge()(request)).rejects.toThrow('the judge model judge-model answered no JSON: I think it is fine.');
    fake.respondWith(() => say('{"verdict": "probably", "confidence": 3}'));
    await expect(judge()(request)).rejects.toThrow(/answered no judgement: .*verdict/);
  });
});

describe('pricedJudgement', () => {
  const prices = { currency: 'USD', models: { 'judge-model': { inputPerMillion: 1_000, outputPerMillion: 2_000 } } };
  const usage = { model: 'judge-model', promptTokens: 20, completionTokens: 10, totalTokens: 30 };

  it("prices a judge's model call with the worker's table", () => {
    expect(pricedJudgement({ verdict: 'approve', usage }, prices).cost).toEqual({ amount: 0.04, currency: 'USD' });
  });

  it('leaves alone a judgement without usage, without a price for its model, without token counts, or with a cost of its own', () => {
    expect(pricedJudgement({ verdict: 'approve' }, prices)).toEqual({ verdict: 'approve' });
    expect(pricedJudgement({ verdict: 'approve', usage: { ...usage, model: 'other' } }, prices).cost).toBeUndefined();
    expect(pricedJudgement({ verdict: 'approve', usage: { model: 'judge-model' } }, prices).cost).toBeUndefined();
    expect(pricedJudgement({ verdict: 'approve', usage, cost: { amount: 1, currency: 'EUR' } }, prices).cost).toEqual({ amount: 1, currency: 'EUR' });
    expect(pricedJudgement({ verdict: 'approve', usage }, undefined).cost).toBeUndefined();
  });
});

describe('judgeUsageReport', () => {
  it("reports a judge's model call as one model call of the run, with its tokens and cost", () => {
    expect(judgeUsageReport({ verdict: 'reject', usage: { model: 'm', totalTokens: 30 }, cost: { amount: 0.04, currency: 'USD' } })).toEqual({ modelCalls: 1, tokens: 30, cost: { amount: 0.04, currency: 'USD' }, model: 'm' });
    expect(judgeUsageReport({ verdict: 'approve', usage: { promptTokens: 20, completionTokens: 10 } })).toEqual({ modelCalls: 1, tokens: 30 });
  });

  it('counts a call whose provider reported no tokens as one of unknown tokens', () => {
    expect(judgeUsageReport({ verdict: 'escalate', usage: { model: 'm' } })).toEqual({ modelCalls: 1, tokens: 0, tokensUnknown: true, model: 'm' });
  });

  it('reports nothing for a judge that asked no model, or failed', () => {
    expect(judgeUsageReport({ verdict: 'approve', confidence: 1 })).toBeUndefined();
    expect(judgeUsageReport({ failed: 'the judge broke' })).toBeUndefined();
  });
});
