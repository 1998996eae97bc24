/**
 * The AI SDK round trip: a chat of the real `ai` package (AbstractChat on DefaultChatTransport,
 * no UI framework) follows a run through /api/chat, answers its approvals with
 * `addToolApprovalResponse` (one approved, one rejected with a reason, then one more in the
 * next turn), and sends them itself; the run takes them as decisions by the token's holder.
 * The message it keeps holds the answer, each call with its result (a long one cut, with its
 * size) and no progress parts: those are transient and reach `onData` only.
 */
import type { RunEvent, RunResult } from '../../contracts';
import type { SessionEvent } from '../../contracts/session';
import type { ScriptStep } from '../../workflows/planners/scripted';
import type { AgentServer } from '../../server';
import type { AgentSuite } from '../support/agent-suite';
import { chatWithAiSdk, sessionChatWithAiSdk, type ChatMessage } from '../support/ai-sdk-chat';
import { liveTokens as tokens, startLiveStack, type LiveStack } from '../support/live-stack';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { waitFor } from '../support/wait';

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
    // Each bound to the call its part showed: the digest of the approval request.
    const requested = new Map(events.flatMap((e) => (e.type === 'approval_requested' ? [[e.toolCallId, e.digest] as const] : [])));
    for (const e of decided) expect(e.digest).toBe(requested.get(e.toolCallId));
    expect(decided.every((e) => e.digest?.startsWith('sha256:'))).toBe(true);
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

describe('AI SDK chat over a session (chat id = session id): a second message while the first is answered', () => {
  const first = 'Track AAPL please';
  const later = 'Actually, track MSFT instead';
  /** The run's last turn answers `done` and reports the conversation it saw. */
  const contextStep: ScriptStep = { type: 'final', text: 'done', reportContext: true };
  const approvalHold: ScriptStep = { type: 'tool_calls', calls: [{ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }] };
  const headers = { authorization: `Bearer ${tokens.operator}` };
  const resultOf = (workflowId: string): Promise<RunResult> => waitFor('the run to end', async () => suite.agents.result(workflowId).catch(() => undefined));
  const userMessagesSeen = async (workflowId: string) =>
    ((await resultOf(workflowId)).final?.structured as unknown as { messages: { role: string; content?: string }[] }).messages.filter((m) => m.role === 'user').map((m) => m.content);
  const texts = (message: ChatMessage | undefined) => message?.parts.filter((p) => p.type === 'text').map((p) => p.text);
  const meta = (message: ChatMessage | undefined) => (message?.metadata as { durableAgents?: Record<string, unknown> } | undefined)?.durableAgents;
  const sessionEvents = async (sessionId: string) => (await suite.agents.session(sessionId).events()).events.map((e: SessionEvent) => e);
  /** A session of the watchlist agent, planned by script, whose first run waits for the approval of its call. */
  const openWatchlist = async (tag: string) => {
    const sessionId = `chat-${tag}-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', sessionState: { watchlist: [] } });
    return sessionId;
  };

  it('enqueue: the second message gets a run of its own after the first, and its answer streams once that run starts', async () => {
    const sessionId = await openWatchlist('enqueue');
    const chat = await sessionChatWithAiSdk({
      server: server.url,
      sessionId,
      headers,
      steps: [
        { send: first, body: { plannerOptions: { steps: [approvalHold, contextStep] } } },
        { waitFor: 'approval' },
        { send: later, body: { whenBusy: 'enqueue', plannerOptions: { steps: [contextStep] } } },
        { waitFor: 'answers', count: 2 },
        { approve: true },
        { settle: true },
      ],
    });
    expect(chat.errors).toEqual([]);
    const report = await suite.agents.session(sessionId).status();
    expect(report.runs.map((r) => [r.runNumber, r.status])).toEqual([
      [1, 'completed'],
      [2, 'completed'],
    ]);
    const [u1, a1, u2, a2] = chat.messages;
    expect([u1?.role, a1?.role, u2?.role, a2?.role]).toEqual(['user', 'assistant', 'user', 'assistant']);
    // Each user message is the message id of its run.
    expect(report.runs.map((r) => r.messageId)).toEqual([u1?.id, u2?.id]);
    expect(a1?.parts.find((p) => p.type === 'tool-add_to_watchlist')).toMatchObject({ state: 'output-available', approval: { approved: true } });
    expect(texts(a1)).toEqual(['done']);
    expect(meta(a1)).toMatchObject({ workflowId: report.runs[0]?.workflowId, delivery: 'queued' });
    expect(texts(a2)).toEqual(['done']);
    expect(meta(a2)).toMatchObject({ workflowId: report.runs[1]?.workflowId, messageId: u2?.id, delivery: 'queued' });
    // In order: the second run started once the first had ended, with the conversation so far.
    const events = await sessionEvents(sessionId);
    const at = (type: string, runNumber: number) => events.findIndex((e) => e.type === type && 'runNumber' in e && e.runNumber === runNumber);
    expect(at('run_ended', 1)).toBeLessThan(at('run_started', 2));
    expect(await userMessagesSeen(report.runs[1]!.workflowId)).toEqual([first, later]);

    // A retried POST of the first message sends nothing twice: it shows the run that took it again.
    const retry = await fetch(`${server.url}/api/sessions/${sessionId}/chat`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ id: sessionId, messages: [u1], trigger: 'submit-message' }),
    });
    expect(retry.status).toBe(200);
    const replayed = await retry.text();
    expect(replayed).toContain(`"messageId":"answer-${u1?.id}"`);
    expect(replayed).toContain(`"workflowId":"${report.runs[0]?.workflowId}"`);
    // As the first response did: up to where the run waited for the approval.
    expect(replayed).toContain('"type":"tool-approval-request"');
    expect((await suite.agents.session(sessionId).status()).runs).toHaveLength(2);
    expect((await sessionEvents(sessionId)).filter((e) => e.type === 'message_repeated')).toEqual([expect.objectContaining({ messageId: u1?.id, runNumber: 1 })]);
    // Nothing to resume in an idle session.
    expect((await fetch(`${server.url}/api/sessions/${sessionId}/chat/stream`, { headers })).status).toBe(204);
    await suite.agents.closeSession(sessionId);
  });

  it("steer: the second message goes into the running run, whose planner sees it; the first answer hands the run over to the second's", async () => {
    const sessionId = await openWatchlist('steer');
    const chat = await sessionChatWithAiSdk({
      server: server.url,
      sessionId,
      headers,
      steps: [
        { send: first, body: { plannerOptions: { steps: [approvalHold, contextStep] } } },
        { waitFor: 'approval' },
        { send: later, body: { whenBusy: 'steer' } },
        { waitFor: 'answers', count: 2 },
        { approve: true },
        { settle: true },
      ],
    });
    expect(chat.errors).toEqual([]);
    const report = await suite.agents.session(sessionId).status();
    const [u1, a1, u2, a2] = chat.messages;
    // One run, which took the steered message.
    expect(report.runs).toEqual([expect.objectContaining({ runNumber: 1, status: 'completed', messageId: u1?.id, steered: [u2?.id] })]);
    expect(await userMessagesSeen(report.runs[0]!.workflowId)).toEqual([first, later]);
    // The first answer shows the run up to the steer, the second from it on: the answer once.
    expect(a1?.parts.find((p) => p.type === 'tool-add_to_watchlist')).toMatchObject({ state: 'output-available' });
    expect(texts(a1)).toEqual([]);
    expect(meta(a1)).toMatchObject({ workflowId: report.runs[0]?.workflowId, continuedBy: u2?.id });
    expect(texts(a2)).toEqual(['done']);
    expect(a2?.parts.some((p) => p.type.startsWith('tool-'))).toBe(false);
    expect(a2?.parts.filter((p) => p.type.startsWith('data-')).map((p) => p.type)).toEqual(['data-end']);
    expect(meta(a2)).toMatchObject({ workflowId: report.runs[0]?.workflowId, messageId: u2?.id, delivery: 'steered' });
    expect((await sessionEvents(sessionId)).filter((e) => e.type === 'steer_delivered')).toEqual([expect.objectContaining({ messageId: u2?.id, runNumber: 1 })]);
    await suite.agents.closeSession(sessionId);
  });

  it('interrupt, sent while the first answer streams: the first run ends, and the second runs with the conversation so far; the chat opened the session', async () => {
    const sessionId = `chat-interrupt-${Date.now()}`;
    const chat = await sessionChatWithAiSdk({
      server: server.url,
      sessionId,
      headers,
      // No session yet: the agent named in the body opens it with the first message.
      body: { agent: 'scripted' },
      steps: [
        { send: first, body: { plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: 600_000 } }] }, contextStep] } } },
        { waitFor: 'tool' },
        { send: later, body: { whenBusy: 'interrupt', plannerOptions: { steps: [contextStep] } } },
        { settle: true },
      ],
    });
    expect(chat.errors).toEqual([]);
    const report = await suite.agents.session(sessionId).status();
    expect(report.agent).toBe('scripted');
    expect(report.runs.map((r) => [r.runNumber, r.status, r.endedBy])).toEqual([
      [1, 'terminated', 'interrupt'],
      [2, 'completed', undefined],
    ]);
    const [, a1, u2, a2] = chat.messages;
    // The first answer streamed until its run ended; the second shows the run that went next.
    expect(a1?.parts.find((p) => p.type === 'data-end')).toMatchObject({ data: { status: 'terminated' } });
    expect(meta(a2)).toMatchObject({ workflowId: report.runs[1]?.workflowId, messageId: u2?.id, delivery: 'next' });
    expect(texts(a2)).toEqual(['done']);
    expect(await userMessagesSeen(report.runs[1]!.workflowId)).toEqual([first, later]);
    await suite.agents.closeSession(sessionId);
  });

  it('steer into a run that ends before taking it: the same response goes on with the run the session gives the message', async () => {
    const sessionId = await openWatchlist('steer-lost');
    const record = await suite.agents.sendMessage(sessionId, { content: first, plannerOptions: { steps: [approvalHold, contextStep] } });
    const run = suite.agents.run(record.workflowId);
    await waitFor("the run's approval", async () => ((await run.pendingInputs().catch(() => undefined))?.approvals.length ? true : undefined));
    const response = await fetch(`${server.url}/api/sessions/${sessionId}/chat`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ id: sessionId, whenBusy: 'steer', plannerOptions: { steps: [contextStep] }, messages: [{ id: 'late-steer', role: 'user', parts: [{ type: 'text', text: later }] }] }),
    });
    expect(response.status).toBe(200);
    await waitFor('the steer to be taken', async () => ((await suite.agents.session(sessionId).events()).events.some((e) => e.type === 'message_taken' && e.delivery === 'steered') ? true : undefined));
    await run.kill({ reason: 'an operator ended it' });
    const chunks = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice('data: '.length)) as { type: string; [key: string]: unknown });
    const report = await suite.agents.session(sessionId).status();
    expect(report.runs[1]).toMatchObject({ runNumber: 2, messageId: 'late-steer', delivery: 'next', status: 'completed' });
    // One message: nothing of the killed run, then the run that took the message, to its end.
    expect(chunks.filter((c) => c.type === 'start')).toEqual([{ type: 'start', messageId: 'answer-late-steer' }]);
    expect(chunks.filter((c) => c.type === 'message-metadata').map((c) => (c.messageMetadata as { durableAgents: Record<string, unknown> }).durableAgents)).toEqual([
      expect.objectContaining({ workflowId: record.workflowId, delivery: 'steered' }),
      expect.objectContaining({ workflowId: report.runs[1]?.workflowId, delivery: 'next' }),
      { lastSeq: expect.any(Number) },
    ]);
    expect(chunks.some((c) => c.type === 'tool-input-available')).toBe(false);
    expect(chunks.filter((c) => c.type === 'text-delta').map((c) => c.delta)).toEqual(['done']);
    expect(chunks.at(-2)).toEqual({ type: 'data-end', data: { status: 'completed' } });
    expect(await userMessagesSeen(report.runs[1]!.workflowId)).toEqual([first, later]);
    await suite.agents.closeSession(sessionId);
  });

  it('reject while a run is active is 409 naming the run; bad input is 400 naming the field; nothing is queued', async () => {
    const sessionId = `chat-reject-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'scripted' });
    const record = await suite.agents.sendMessage(sessionId, { content: first, plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ name: 'sleep', args: { ms: 600_000 } }] }, contextStep] } });
    await waitFor('the run to start', async () => ((await suite.agents.session(sessionId).status()).runs[0]?.status === 'running' ? true : undefined));
    const post = (body: Record<string, unknown>) =>
      fetch(`${server.url}/api/sessions/${sessionId}/chat`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ id: sessionId, ...body }) });
    const user = (id: string) => ({ id, role: 'user', parts: [{ type: 'text', text: later }] });
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ messages: [user('r1')], whenBusy: 'reject' }, 409, new RegExp(`session_busy.*busy with run ${record.workflowId}`)],
      [{ messages: [user('r2')], whenBusy: 'later' }, 400, /body\.whenBusy/],
      [{ messages: [user('r3')], id: 'another' }, 400, /body\.id/],
      [{ messages: [user('has space')] }, 400, /body\.messages\.0\.id/],
      [{ messages: [{ id: 'r4', role: 'user', parts: [] }] }, 400, /body\.messages\.0\.parts: the user message has no text/],
      [{ messages: [{ id: 'a1', role: 'assistant', parts: [], metadata: { durableAgents: { workflowId: 'session-other/run-1', lastSeq: 1 } } }] }, 400, /metadata\.durableAgents\.workflowId/],
    ];
    for (const [body, status, message] of cases) {
      const response = await post(body);
      expect({ body, status: response.status }).toEqual({ body, status });
      expect(await response.text()).toMatch(message);
    }
    expect((await suite.agents.session(sessionId).status()).runs.map((r) => r.runNumber)).toEqual([1]);
    // A session that is not open, with no agent to open it: 404 naming it.
    const missing = await fetch(`${server.url}/api/sessions/no-such-session/chat`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'no-such-session', messages: [user('n1')] }) });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toMatch(/session no-such-session is not open: name its agent \(body\.agent\)/);
    // A resumed chat follows the active run, as the answer to the message it took.
    const resumed = new AbortController();
    const resume = await fetch(`${server.url}/api/sessions/${sessionId}/chat/stream`, { headers, signal: resumed.signal });
    expect(resume.status).toBe(200);
    const reader = (resume.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    while (!seen.includes('"type":"tool-input-available"')) seen += (await reader.read()).value ?? '';
    resumed.abort();
    expect(seen).toContain(`"messageId":"answer-${record.messageId}"`);
    expect(seen).toContain(`"workflowId":"${record.workflowId}"`);
    await suite.agents.run(record.workflowId).kill({ reason: 'test over' });
    await suite.agents.closeSession(sessionId);
  });
});
