/**
 * The AI SDK round trip: a chat of the real `ai` package (AbstractChat on DefaultChatTransport,
 * no UI framework) follows a run through /api/chat, answers its approvals with
 * `addToolApprovalResponse` (one approved, one rejected with a reason, then one more in the
 * next turn), and sends them itself; the run takes them as decisions by the token's holder.
 * The message it keeps holds the answer, each call with its result (a long one cut, with its
 * size) and no progress parts: those are transient and reach `onData` only.
 */
import type { RunEvent } from '../../contracts';
import type { AgentServer } from '../../server';
import type { AgentSuite } from '../support/agent-suite';
import { chatWithAiSdk, type ChatMessage } from '../support/ai-sdk-chat';
import { liveTokens as tokens, startLiveStack, type LiveStack } from '../support/live-stack';
import { callStep, finalStep, scriptedInput } from '../support/scripts';

const answer = 'Your watchlist now has AAPL, and this answer streams in several pieces.';
let stack: LiveStack;
let suite: AgentSuite;
let server: AgentServer;

beforeAll(async () => {
  stack = await startLiveStack('ai-sdk-chat', answer);
  ({ suite, server } = stack);
});
afterAll(() => stack?.close());

const toolPart = (message: ChatMessage | undefined, toolCallId: string) => message?.parts.find((p) => p.toolCallId === toolCallId);
const long = 'x'.repeat(5_000);

describe('AI SDK chat round trip', () => {
  it('a chat answers the run\'s approvals in its own protocol, and keeps the results and the answer, without progress parts', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput(
        [
          callStep({ name: 'echo', args: { text: 'approve me' }, id: 'short' }, { name: 'step', args: { label: 'not this', ms: 1 }, id: 'rejected' }),
          callStep({ name: 'echo', args: { text: long }, id: 'long' }),
          finalStep('all answered'),
        ],
        { confirmation: { all: true } },
      ),
    );
    const chat = await chatWithAiSdk({
      api: `${server.url}/api/chat`,
      chatId: workflowId,
      headers: { authorization: `Bearer ${tokens.operator}` },
      answers: { step: { approved: false, reason: 'not this one' } },
    });
    expect(chat.errors).toEqual([]);
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', final: { text: 'all answered' } });

    // One resume, then one request per turn that asked for approvals.
    expect(chat.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual([`GET /api/chat/${workflowId}/stream`, 'POST /api/chat', 'POST /api/chat']);
    expect(chat.messages).toHaveLength(1);
    const message = chat.messages[0];
    expect(toolPart(message, 'short')).toMatchObject({ state: 'output-available', output: { text: 'approve me' }, approval: { approved: true } });
    expect(toolPart(message, 'rejected')).toMatchObject({ state: 'output-denied', approval: { approved: false, reason: 'not this one' } });
    const cut = toolPart(message, 'long');
    expect(cut).toMatchObject({ state: 'output-available', approval: { approved: true }, output: { resultCut: true, resultBytes: expect.any(Number) } });
    expect((cut?.output as { resultPreview: string }).resultPreview).toHaveLength(2_000);
    expect(message?.parts.filter((p) => p.type === 'text').map((p) => p.text)).toEqual(['all answered']);
    // Progress went to onData only; the message keeps the run's end.
    expect(chat.dataParts).toEqual(expect.arrayContaining(['data-run_started', 'data-plan', 'data-approval_decided', 'data-final']));
    expect(message?.parts.filter((p) => p.type.startsWith('data-')).map((p) => p.type)).toEqual(['data-end']);
    expect(message?.metadata).toEqual({ durableAgents: { lastSeq: expect.any(Number) } });

    // The run took the chat's answers as decisions by the token's holder.
    const { events } = await suite.agents.events(workflowId, 0, 1000);
    const decided = events.filter((e): e is Extract<RunEvent, { type: 'approval_decided' }> => e.type === 'approval_decided');
    expect(decided.map((e) => [e.toolCallId, e.decision, e.by])).toEqual([
      ['short', 'approve', 'operator-user'],
      ['rejected', 'reject', 'operator-user'],
      ['long', 'approve', 'operator-user'],
    ]);
  });

  it('a model-planned run: the chat approves its call, and the answer streamed after it is one text part', async () => {
    const { workflowId } = await suite.agents.start({ agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Add AAPL' }], sessionState: { watchlist: [] } });
    const chat = await chatWithAiSdk({ api: `${server.url}/api/chat`, chatId: workflowId, headers: { authorization: `Bearer ${tokens.operator}` }, answers: {} });
    expect(chat.errors).toEqual([]);
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: answer } });
    const message = chat.messages[0];
    expect(message?.parts.filter((p) => p.type === 'text').map((p) => p.text)).toEqual([answer]);
    const calls = message?.parts.filter((p) => p.type === 'tool-add_to_watchlist') ?? [];
    expect(calls).toEqual([expect.objectContaining({ state: 'output-available', input: { symbols: ['AAPL'] }, approval: expect.objectContaining({ approved: true }) })]);
    expect(calls[0]?.output).toBeDefined();
    expect(chat.requests.map((r) => r.method)).toEqual(['GET', 'POST']);
    // Streamed by deltas, or (they are best effort) completed by the final event: one part either way.
    expect(chat.textDeltas).toBeGreaterThanOrEqual(1);
  });

  it('refuses what the chat route cannot do, with the reason, and leaves the run as it was', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'wait' }, id: 'c' }), finalStep('done')], { confirmation: { all: true } }));
    await suite.agents.pendingInputs(workflowId);
    const post = (body: unknown, token: string = tokens.operator) =>
      fetch(`${server.url}/api/chat`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const user = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello' }] };
    const answered = { id: 'a1', role: 'assistant', parts: [{ type: 'tool-echo', toolCallId: 'c', state: 'approval-responded', input: {}, approval: { id: 'c', approved: true } }] };
    const cases: [unknown, string, number, RegExp][] = [
      [{ id: workflowId, messages: [user] }, tokens.operator, 400, /got a user message; start a run with POST \/api\/runs/],
      [{ id: workflowId, messages: [answered], trigger: 'regenerate-message' }, tokens.operator, 400, /does not regenerate/],
      [{ id: workflowId, messages: 'none' }, tokens.operator, 400, /messages/],
      [{ id: workflowId, messages: [answered] }, tokens.viewer, 403, /operator/],
      [{ id: 'no-such-run', messages: [answered] }, tokens.operator, 404, /no-such-run/],
    ];
    for (const [body, token, status, message] of cases) {
      const response = await post(body, token);
      expect({ body, status: response.status }).toEqual({ body, status });
      expect(await response.text()).toMatch(message);
    }
    expect((await suite.agents.pendingInputs(workflowId)).approvals.map((a) => a.toolCallId)).toEqual(['c']);
    await suite.agents.kill(workflowId, { reason: 'test over' });
  });
});
