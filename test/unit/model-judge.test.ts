import OpenAI from 'openai';
import { modelJudge } from '../../activities/model-judge';
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
    expect(await judge()(request)).toEqual({ verdict: 'approve', confidence: 0.85, reason: 'a small payment to a known payee' });
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
