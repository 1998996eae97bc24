/**
 * The AG-UI round trip: the real `@ag-ui/client` HttpAgent (no framework) follows a run through
 * POST /api/ag-ui as its thread, sees the run's approvals as interrupts, answers them with resume
 * entries (one approved, one rejected with a reason, parallel calls of one turn), and runs on to
 * the run's end. Every event the server sent is checked against `@ag-ui/core` 1.0's schema, and
 * the client's own verifier and reducer take them without a warning.
 */
import { HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import type { RunEvent } from '../../contracts';
import { approvalDigest } from '../../contracts/approval-digest';
import type { AgentServer } from '../../server';
import type { AgentSuite } from '../support/agent-suite';
import { liveTokens as tokens, startLiveStack, type LiveStack } from '../support/live-stack';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { waitFor } from '../support/wait';

const answer = 'AAPL is on your watchlist now, and this answer streams in several pieces.';
let stack: LiveStack;
let suite: AgentSuite;
let server: AgentServer;

beforeAll(async () => {
  stack = await startLiveStack('ag-ui', answer);
  ({ suite, server } = stack);
});
afterAll(() => stack?.close());

/** An HttpAgent on a run, with every event the server sent (parsed from the SSE bodies) and the client's warnings. */
function agentOn(workflowId: string, token: string = tokens.operator, url = `${server.url}/api/ag-ui`) {
  const sent: BaseEvent[][] = [];
  const warnings: string[] = [];
  const reads: Promise<void>[] = [];
  const recordingFetch = async (url: string, init: RequestInit): Promise<Response> => {
    const response = await fetch(url, init);
    if (!response.body) return response;
    const [mine, theirs] = response.body.tee();
    const events: BaseEvent[] = [];
    sent.push(events);
    reads.push(
      new Response(mine).text().then((text) => {
        for (const line of text.split('\n')) if (line.startsWith('data: ')) events.push(JSON.parse(line.slice('data: '.length)) as BaseEvent);
      }),
    );
    return new Response(theirs, { status: response.status, headers: response.headers });
  };
  const agent = new HttpAgent({ url, threadId: workflowId, headers: { authorization: `Bearer ${token}` }, fetch: recordingFetch });
  agent.subscribe({ onEvent: () => undefined });
  return {
    agent,
    warnings,
    /** Runs the agent, recording what the client warned about while it read. */
    run: async (parameters?: Parameters<HttpAgent['runAgent']>[0]) => {
      const warn = jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(' ')));
      try {
        return await agent.runAgent(parameters);
      } finally {
        warn.mockRestore();
      }
    },
    /** The events of each response, once all were read. */
    responses: async () => {
      await Promise.all(reads);
      return sent;
    },
  };
}

/** Every event valid under the protocol's schema (the first invalid one named). */
function expectValid(responses: BaseEvent[][]): void {
  const invalid = responses.flat().find((event) => !EventSchema.safeParse(event).success);
  expect(invalid).toBeUndefined();
}

const typesOf = (events: BaseEvent[]) => events.map((e) => e.type);
const toolMessage = (messages: Message[], toolCallId: string) => messages.find((m) => m.role === 'tool' && m.toolCallId === toolCallId);

describe('AG-UI round trip', () => {
  it('answers parallel approvals as interrupts with resume entries, one approved and one rejected with a reason, and runs to the end', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput(
        [callStep({ name: 'echo', args: { text: 'approve me' }, id: 'short' }, { name: 'step', args: { label: 'not this', ms: 1 }, id: 'rejected' }), finalStep('all answered')],
        { confirmation: { all: true } },
      ),
    );
    const client = agentOn(workflowId);
    await client.run();
    expect(client.agent.pendingInterrupts.map((i) => [i.id, i.toolCallId, i.reason])).toEqual([
      ['short', 'short', 'tool_approval'],
      ['rejected', 'rejected', 'tool_approval'],
    ]);
    const { result } = await client.run({
      resume: [
        { interruptId: 'short', status: 'resolved' },
        { interruptId: 'rejected', status: 'resolved', payload: { decision: 'reject', reason: 'not this one' } },
      ],
    });
    expect(result).toMatchObject({ text: 'all answered' });
    expect(client.agent.pendingInterrupts).toEqual([]);
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'all answered' } });

    const responses = await client.responses();
    expectValid(responses);
    expect(client.warnings).toEqual([]);
    expect(responses.map((events) => [events[0]?.type, events.at(-1)?.type, (events.at(-1)?.outcome as { type: string } | undefined)?.type])).toEqual([
      ['RUN_STARTED', 'RUN_FINISHED', 'interrupt'],
      ['RUN_STARTED', 'RUN_FINISHED', 'success'],
    ]);
    // The second response continues after the first: no call is shown twice.
    expect(typesOf(responses[1] ?? [])).not.toContain('TOOL_CALL_START');
    const messages = client.agent.messages;
    expect(messages.filter((m) => m.role === 'assistant').flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => [c.id, c.function.name]) : []))).toEqual([
      ['short', 'echo'],
      ['rejected', 'step'],
    ]);
    expect(JSON.parse(String(toolMessage(messages, 'short')?.content))).toEqual({ text: 'approve me' });
    expect(JSON.parse(String(toolMessage(messages, 'rejected')?.content))).toEqual({ rejected: true, reason: 'not this one' });
    expect(messages.filter((m) => m.role === 'assistant' && m.content).map((m) => m.content)).toEqual(['all answered']);
    expect(client.agent.state).toEqual({ durableAgents: { lastSeq: expect.any(Number) } });

    // The run took the answers as decisions by the token's holder.
    const { events } = await suite.agents.events(workflowId, 0, 1000);
    const decided = events.filter((e): e is Extract<RunEvent, { type: 'approval_decided' }> => e.type === 'approval_decided');
    expect(decided.map((e) => [e.toolCallId, e.decision, e.by])).toEqual([
      ['short', 'approve', 'operator-user'],
      ['rejected', 'reject', 'operator-user'],
    ]);
  });

  it('a model-planned run: the client approves its call, and the answer streamed after it is one text message', async () => {
    const { workflowId } = await suite.agents.start({ agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Add AAPL' }], sessionState: { watchlist: [] } });
    const client = agentOn(workflowId);
    await client.run();
    const [interrupt] = client.agent.pendingInterrupts;
    expect(client.agent.pendingInterrupts).toHaveLength(1);
    await client.run({ resume: [{ interruptId: interrupt?.id ?? '', status: 'resolved', payload: { decision: 'approve' } }] });
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: answer } });
    const responses = await client.responses();
    expectValid(responses);
    expect(client.warnings).toEqual([]);
    const texts = client.agent.messages.filter((m) => m.role === 'assistant' && m.content).map((m) => m.content);
    expect(texts).toEqual([answer]);
    expect(client.agent.messages.find((m) => m.role === 'assistant' && m.toolCalls?.length)).toMatchObject({ toolCalls: [{ function: { name: 'add_to_watchlist' } }] });
    expect(typesOf(responses.flat())).toEqual(expect.arrayContaining(['STEP_STARTED', 'TEXT_MESSAGE_CONTENT', 'TOOL_CALL_RESULT', 'CUSTOM']));
  });

  it('reads a waiting run without writing to it: a client asking again while it waits gets the same interrupt at once', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'wait' }, id: 'c' }), finalStep('done')], { confirmation: { all: true } }));
    await suite.agents.pendingInputs(workflowId);
    const historyLength = async () => (await suite.env.client.workflow.getHandle(workflowId).describe()).historyLength;
    const before = await historyLength();
    const client = agentOn(workflowId, tokens.viewer);
    await client.run();
    expect(client.agent.pendingInterrupts.map((i) => i.id)).toEqual(['c']);
    // A new client that kept the thread's state (not its interrupts) asks again.
    const again = agentOn(workflowId, tokens.viewer);
    again.agent.setState(client.agent.state);
    await again.run();
    expect(again.agent.pendingInterrupts.map((i) => i.id)).toEqual(['c']);
    expect(typesOf((await again.responses())[0] ?? [])).toEqual(['RUN_STARTED', 'STATE_SNAPSHOT', 'RUN_FINISHED']);
    expect(await historyLength()).toBe(before);
    await suite.agents.kill(workflowId, { reason: 'test over' });
  });

  it('binds a resume entry to the call the client was shown: after a rewind asks again with other arguments, the old screen\'s approval is refused naming both digests; the new interrupt carries its digest', async () => {
    const ten = { text: 'pay ten' };
    const more = { text: 'pay ten thousand' };
    // A breakpoint after each plan lets an operator change the call before it asks again.
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ id: 'pay', name: 'echo', args: ten }), finalStep('paid')], { confirmation: { tools: ['echo'] }, breakpoints: [{ point: 'after_llm' }] }),
    );
    const paused = () => waitFor('the breakpoint', async () => ((await suite.agents.status(workflowId)).status === 'paused' ? true : undefined));
    await paused();
    await suite.agents.resume(workflowId);
    await waitFor('pay waiting', async () => (await suite.agents.pendingInputs(workflowId)).approvals[0]);
    const client = agentOn(workflowId);
    await client.run();
    expect(client.agent.pendingInterrupts).toEqual([expect.objectContaining({ id: 'pay', metadata: { digest: approvalDigest('echo', ten) } })]);

    await suite.agents.rewind(workflowId, { toTurn: 0, reason: 'ask for more' });
    await paused();
    await suite.agents.intervene(workflowId, { kind: 'edit_call', toolCallId: 'pay', args: more });
    await suite.agents.intervene(workflowId, { kind: 'clear_breakpoint', point: 'after_llm' });
    await suite.agents.resume(workflowId);
    await waitFor('pay asked again', async () => (await suite.agents.pendingInputs(workflowId)).approvals.find((a) => a.digest === approvalDigest('echo', more)));

    // The first client still shows "pay ten": its approval is for that, not for what waits now.
    const stale = await fetch(`${server.url}/api/ag-ui`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: workflowId, runId: 'r-stale', messages: client.agent.messages, state: client.agent.state, resume: [{ interruptId: 'pay', status: 'resolved' }] }),
    });
    expect(stale.status).toBe(422);
    expect(((await stale.json()) as { error: { message: string } }).error.message).toBe(
      `body.resume[0]: call "pay" waits with other arguments than the ones shown: the decision is for ${approvalDigest('echo', ten)}, ` +
        `the call waiting is ${approvalDigest('echo', more)}; read the run again and answer its new interrupt`,
    );
    await expect(client.run({ resume: [{ interruptId: 'pay', status: 'resolved' }] })).rejects.toThrow();
    expect((await suite.agents.pendingInputs(workflowId)).approvals).toEqual([expect.objectContaining({ toolCallId: 'pay', args: more })]);

    // A client that reads the run now is shown the new arguments and its interrupt their digest; its approval applies.
    const fresh = agentOn(workflowId);
    await fresh.run();
    expect(fresh.agent.pendingInterrupts).toEqual([expect.objectContaining({ id: 'pay', metadata: { digest: approvalDigest('echo', more) } })]);
    await fresh.run({ resume: [{ interruptId: 'pay', status: 'resolved' }] });
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'paid' } });
    const { events } = await suite.agents.events(workflowId, 0, 1000);
    expect(events.filter((e) => e.type === 'approval_decided')).toEqual([expect.objectContaining({ toolCallId: 'pay', decision: 'approve', digest: approvalDigest('echo', more) })]);
    expectValid(await fresh.responses());
  });

  it('refuses what it cannot do, naming the field, and leaves the run as it was', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'wait' }, id: 'c' }), finalStep('done')], { confirmation: { all: true } }));
    await suite.agents.pendingInputs(workflowId);
    const post = (body: Record<string, unknown>, token: string = tokens.operator) =>
      fetch(`${server.url}/api/ag-ui`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ threadId: workflowId, runId: 'r1', messages: [], ...body }) });
    const resume = (entry: Record<string, unknown>) => ({ resume: [{ interruptId: 'c', status: 'resolved', ...entry }] });
    const cases: [Record<string, unknown>, string, number, RegExp][] = [
      [resume({ interruptId: 'not-asked' }), tokens.operator, 422, /body\.resume\[0\]\.interruptId: the run waits for no approval of "not-asked".*"c"/],
      [resume({ payload: { decision: 'maybe' } }), tokens.operator, 400, /body\.resume\[0\]\.payload\.decision/],
      [resume({ status: 'later' }), tokens.operator, 400, /body\.resume\.0\.status/],
      [resume({}), tokens.viewer, 403, /operator/],
      [{ threadId: undefined }, tokens.operator, 400, /body\.threadId/],
      [{ state: { durableAgents: { lastSeq: -1 } } }, tokens.operator, 400, /body\.state\.durableAgents/],
      [{ messages: [{ id: 'u1', role: 'user', content: 'hello' }] }, tokens.operator, 400, /start a run with POST \/api\/runs/],
      [{ threadId: 'no-such-run' }, tokens.operator, 404, /no-such-run/],
    ];
    for (const [body, token, status, message] of cases) {
      const response = await post(body, token);
      expect({ body, status: response.status }).toEqual({ body, status });
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(message);
    }
    expect((await suite.agents.pendingInputs(workflowId)).approvals.map((a) => a.toolCallId)).toEqual(['c']);
    await suite.agents.kill(workflowId, { reason: 'test over' });
    // The route is in the API's document, with its role and the RunAgentInput it takes.
    const document = (await (await fetch(`${server.url}/openapi.json`, { headers: { authorization: `Bearer ${tokens.viewer}` } })).json()) as {
      paths: Record<string, Record<string, { 'x-required-role': string; requestBody: { content: Record<string, { schema: { properties: object } }> } }>>;
    };
    const operation = document.paths['/api/ag-ui']?.post;
    expect(operation?.['x-required-role']).toBe('viewer');
    expect(Object.keys(operation?.requestBody.content['application/json']?.schema.properties ?? {})).toEqual(expect.arrayContaining(['threadId', 'runId', 'messages', 'state', 'resume']));
  });
});

describe('AG-UI over a session (threadId = session id)', () => {
  const first = 'Track AAPL please';
  const later = 'Actually, track MSFT instead';
  const contextStep: ScriptStep = { type: 'final', text: 'done', reportContext: true };
  const approvalHold: ScriptStep = { type: 'tool_calls', calls: [{ name: 'add_to_watchlist', args: { symbols: ['AAPL'] } }] };
  const userMessagesSeen = async (workflowId: string) =>
    ((await suite.agents.result(workflowId)).final?.structured as unknown as { messages: { role: string; content?: string }[] }).messages.filter((m) => m.role === 'user').map((m) => m.content);
  const texts = (messages: Message[]) => messages.flatMap((m) => (m.role === 'assistant' && m.content ? [[m.id, m.content]] : []));

  it('a message from a second tab while the run waits for its approval steers it: the first tab\'s resume runs it on, and the answer streams to the second', async () => {
    const sessionId = `ag-ui-steer-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', sessionState: { watchlist: [] } });
    const url = `${server.url}/api/sessions/${sessionId}/ag-ui`;
    const tab1 = agentOn(sessionId, tokens.operator, url);
    tab1.agent.addMessage({ id: 'u1', role: 'user', content: first });
    await tab1.run({ forwardedProps: { plannerOptions: { steps: [approvalHold, contextStep] } } });
    const [interrupt] = tab1.agent.pendingInterrupts;
    expect(interrupt).toMatchObject({ reason: 'tool_approval' });
    const run1 = `session-${sessionId}/run-1`;
    expect(tab1.agent.state).toEqual({ durableAgents: { sessionId, workflowId: run1, messageId: 'u1', lastSeq: expect.any(Number) } });

    // Double-texting from another tab of the thread: steered into the run, which waits.
    const tab2 = agentOn(sessionId, tokens.operator, url);
    tab2.agent.addMessage({ id: 'u2', role: 'user', content: later });
    const steered = tab2.run({ forwardedProps: { whenBusy: 'steer' } });
    await waitFor('the steer to be taken', async () => ((await suite.agents.session(sessionId).events()).events.some((e) => e.type === 'message_taken' && e.delivery === 'steered') ? true : undefined));
    await tab1.run({ resume: [{ interruptId: interrupt!.id, status: 'resolved' }] });
    const { result } = await steered;
    expect(result).toMatchObject({ text: 'done' });

    // One run, whose planner saw both messages.
    const report = await suite.agents.session(sessionId).status();
    expect(report.runs).toEqual([expect.objectContaining({ runNumber: 1, status: 'completed', messageId: 'u1', steered: ['u2'] })]);
    expect(await userMessagesSeen(run1)).toEqual([first, later]);
    // The first tab's run ended where the steer was taken, handing over; the answer is the second tab's.
    expect(tab1.agent.state).toEqual({ durableAgents: { sessionId, workflowId: run1, messageId: 'u1', continuedBy: 'u2', lastSeq: expect.any(Number) } });
    expect(JSON.parse(String(toolMessage(tab1.agent.messages, 'call_0_0')?.content))).toMatchObject({ added: ['AAPL'] });
    expect(texts(tab1.agent.messages)).toEqual([]);
    expect(texts(tab2.agent.messages)).toEqual([['run-1-text-1', 'done']]);
    expect(tab2.agent.state).toEqual({ durableAgents: { sessionId, workflowId: run1, messageId: 'u2', lastSeq: expect.any(Number) } });

    // The next message gets a run of its own, whose messages do not take the first run's ids.
    tab2.agent.addMessage({ id: 'u3', role: 'user', content: 'And now?' });
    await tab2.run({ forwardedProps: { plannerOptions: { steps: [contextStep] } } });
    expect(texts(tab2.agent.messages)).toEqual([
      ['run-1-text-1', 'done'],
      ['run-2-text-0', 'done'],
    ]);
    expect((await suite.agents.session(sessionId).status()).runs.map((r) => [r.runNumber, r.messageId, r.status])).toEqual([
      [1, 'u1', 'completed'],
      [2, 'u3', 'completed'],
    ]);

    const responses = [...(await tab1.responses()), ...(await tab2.responses())];
    expectValid(responses);
    expect([...tab1.warnings, ...tab2.warnings]).toEqual([]);
    await suite.agents.closeSession(sessionId);
  });

  it('refuses what it cannot take, naming the field: reject while a run is active is 409 naming the run', async () => {
    const sessionId = `ag-ui-refuse-${Date.now()}`;
    await suite.agents.openSession(sessionId, { agent: 'watchlist-scripted', sessionState: { watchlist: [] } });
    const record = await suite.agents.sendMessage(sessionId, { content: first, plannerOptions: { steps: [approvalHold, contextStep] } });
    await waitFor("the run's approval", async () => ((await suite.agents.pendingInputs(record.workflowId).catch(() => undefined))?.approvals.length ? true : undefined));
    const post = (body: Record<string, unknown>, token: string = tokens.operator) =>
      fetch(`${server.url}/api/sessions/${sessionId}/ag-ui`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ threadId: sessionId, runId: 'r', messages: [{ id: 'n1', role: 'user', content: later }], ...body }),
      });
    const cases: [Record<string, unknown>, string, number, RegExp][] = [
      [{ forwardedProps: { whenBusy: 'reject' } }, tokens.operator, 409, new RegExp(`session_busy.*busy with run ${record.workflowId}`)],
      [{ forwardedProps: { whenBusy: 'later' } }, tokens.operator, 400, /body\.forwardedProps\.whenBusy/],
      [{ threadId: 'another' }, tokens.operator, 400, /body\.threadId/],
      [{}, tokens.viewer, 403, /operator/],
      [{ messages: [{ id: 'n2', role: 'user', content: [] }] }, tokens.operator, 400, /body\.messages\.0\.content/],
      [{ messages: [], resume: [{ interruptId: 'x', status: 'resolved' }], state: { durableAgents: { lastSeq: 1, workflowId: 'session-other/run-1' } } }, tokens.operator, 400, /body\.state\.durableAgents\.workflowId/],
    ];
    for (const [body, token, status, message] of cases) {
      const response = await post(body, token);
      expect({ body, status: response.status }).toEqual({ body, status });
      expect(await response.text()).toMatch(message);
    }
    expect((await suite.agents.session(sessionId).status()).runs.map((r) => r.runNumber)).toEqual([1]);
    await suite.agents.run(record.workflowId).kill({ reason: 'test over' });
    await suite.agents.closeSession(sessionId);
  });
});
