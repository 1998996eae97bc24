import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createModelActivities, queryTranscriptFetcher, TranscriptCache, type TranscriptFetcher } from '../../activities/model';
import { findTestAgent } from '../support/agents';
import { allToolImplementations } from '../support/tools';
import type { AgentClient } from '../../client/agent-client';
import type { RunEvent, RunInput, RunResult } from '../../contracts';
import { modelCallInputSchema, type ParsedModelCallInput } from '../../workflows/planners/llm';
import {
  badRequest,
  callTools,
  contextLengthExceeded,
  cutOff,
  dynamic,
  emptyBody,
  FakeOpenAIServer,
  held,
  llamaContextOverflow,
  rateLimited,
  say,
  toolCall,
  validationError500,
  type FakeChatMessage,
} from '../../testing/fake-model';
import { waitFor } from '../support/wait';
import { agentClient, createTestEnv, createTestWorker, uniqueTaskQueue, workflowBundleOption } from '../support/test-env';

let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let agents: AgentClient;
let fake: FakeOpenAIServer;
const cache = new TranscriptCache();
/** Transcript reads on cache misses, by workflow id. */
const fetches: { workflowId: string; from: number; to: number }[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  fake = await FakeOpenAIServer.start();
  const query = queryTranscriptFetcher();
  const fetchTranscript: TranscriptFetcher = (run, from, to) => {
    fetches.push({ workflowId: run.workflowId, from, to });
    return query(run, from, to);
  };
  const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
  const taskQueue = uniqueTaskQueue('llm-planner');
  worker = await createTestWorker(env, taskQueue, allToolImplementations(), createModelActivities({ openai, cache, fetchTranscript, findAgent: findTestAgent }));
  running = worker.run();
  agents = agentClient(env, taskQueue);
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await fake?.close();
  await env?.teardown();
});

afterEach(() => {
  // The fake fails loudly: an unexpected request or a script step left over fails the test.
  expect(fake.errors).toEqual([]);
  expect(fake.remaining).toBe(0);
  fake.reset();
});

const instructionsFor = (watchlist: string[]): string =>
  `You MUST use the add_to_watchlist tool when the user asks to add a stock. The user's watchlist is: ${JSON.stringify(watchlist)}`;

function llmInput(content: string, extra: Partial<RunInput> = {}): RunInput {
  return { agent: 'watchlist-llm', messages: [{ role: 'user', content }], sessionState: { watchlist: ['TSLA', 'AAPL'] }, ...extra };
}

async function runToEnd(input: RunInput): Promise<{ result: RunResult; events: RunEvent[]; workflowId: string }> {
  const { workflowId } = await agents.start(input);
  const result = await agents.result(workflowId);
  const events = (await agents.events(workflowId, 0, 1000)).events;
  return { result, events, workflowId };
}

async function runFailure(input: RunInput): Promise<ApplicationFailure> {
  const { workflowId } = await agents.start(input);
  const err = await agents.result(workflowId).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

/** The messages the model was sent, request by request. */
function sentMessages(): FakeChatMessage[][] {
  return fake.chatRequests.map((r) => r.body?.messages ?? []);
}

async function callModelInputs(workflowId: string): Promise<ParsedModelCallInput[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'callModel')
    .map((a) => modelCallInputSchema().parse(defaultPayloadConverter.fromPayload(a?.input?.payloads?.[0] ?? {})));
}

describe('LLM planner on a real dev server', () => {
  it('runs a multi-turn tool-using run, rendering {watchlist} from session state each turn', async () => {
    fake.script(
      callTools(toolCall('remove_from_watchlist', { symbols: ['TSLA'] }, 'r1')),
      callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'q1')),
      say('Removed TSLA. AAPL is quoted.'),
    );
    const { result, workflowId } = await runToEnd(llmInput('Drop TSLA and quote the rest'));
    expect(result).toMatchObject({ status: 'completed', final: { text: 'Removed TSLA. AAPL is quoted.' }, sessionState: { watchlist: ['AAPL'] } });
    expect(result.cost.tokens.used).toBe(90);
    expect(result.cost.modelCalls.used).toBe(3);

    const sent = sentMessages();
    expect(sent[0]?.[0]).toEqual({ role: 'system', content: instructionsFor(['TSLA', 'AAPL']) });
    expect(sent[2]?.[0]).toEqual({ role: 'system', content: instructionsFor(['AAPL']) });
    expect(sent[2]?.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(sent[2]?.[5]).toMatchObject({ role: 'tool', tool_call_id: 'q1', content: expect.stringContaining('"symbol":"AAPL"') });
    expect(fake.chatRequests.every((r) => r.body?.stream === true && r.body.tools?.some((t) => t.function.name === 'ask_clarification'))).toBe(true);

    // Each model activity carries only what is new since the previous call.
    const inputs = await callModelInputs(workflowId);
    expect(inputs.map((i) => [i.baseCount, i.newMessages.length])).toEqual([
      [0, 1],
      [1, 2],
      [3, 2],
    ]);
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: await workflowBundleOption() }, history, workflowId);
    expect(fetches.filter((f) => f.workflowId === workflowId)).toEqual([]);
  });

  it('marks each turn by its model call, so a rewind goes back to a turn and asks the model again from there', async () => {
    fake.script(callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'b1')), callTools(toolCall('get_quote', { symbol: 'MSFT' }, 'b2')), say('Both quoted.'));
    const { workflowId } = await runToEnd(llmInput('Quote AAPL, then MSFT'));
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const modelIds = (history.events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [e.activityTaskScheduledEventAttributes.activityId] : []));
    expect(modelIds).toEqual(['turn-0/model-1', 'turn-1/model-2', 'turn-2/model-3']);
    // Every turn began with its model call: no memo change at all.
    expect((history.events ?? []).filter((e) => e.workflowPropertiesModifiedEventAttributes)).toEqual([]);
    const checkpoints = await agents.checkpoints(workflowId);
    expect(checkpoints.map((c) => [c.turn, c.summary.modelCalls, c.summary.toolCalls])).toEqual([
      [0, 1, ['get_quote']],
      [1, 1, ['get_quote']],
      [2, 1, []],
    ]);

    fake.script(say('Quoted AAPL only.'));
    await agents.rewind(workflowId, { toTurn: 1, reason: 'ask again from turn 1' });
    const result = await agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', final: { text: 'Quoted AAPL only.' } });
    // The rewound run kept turn 0 and asked the model for turn 1 with the AAPL quote in its transcript.
    const asked = sentMessages().at(-1) ?? [];
    expect(asked.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(asked[3]).toMatchObject({ role: 'tool', tool_call_id: 'b1' });
  });

  it('runs parallel tool calls of one model answer and answers each call in order', async () => {
    fake.script(callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'p1'), toolCall('get_quote', { symbol: 'MSFT' }, 'p2')), say('Both quoted.'));
    const { result, events } = await runToEnd(llmInput('Quote AAPL and MSFT'));
    expect(result.status).toBe('completed');
    const kinds = events.filter((e) => e.type === 'tool_call' || e.type === 'tool_result').map((e) => e.type);
    expect(kinds).toEqual(['tool_call', 'tool_call', 'tool_result', 'tool_result']);
    const second = sentMessages()[1] ?? [];
    expect(second.slice(2).map((m) => (m.role === 'tool' ? m.tool_call_id : m.role))).toEqual(['assistant', 'p1', 'p2']);
  });

  it('answers malformed tool-call JSON with invalid_arguments, and the model repairs it next turn', async () => {
    fake.script(
      callTools(toolCall('get_quote', '{"symbol": "AAPL"', 'bad1')),
      dynamic((request) => {
        const last = request.body?.messages.at(-1);
        if (last?.role !== 'tool' || !last.content.includes('invalid_arguments')) return say('unexpected: no invalid_arguments result');
        return callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'good1'));
      }),
      say('AAPL quoted after a retry.'),
    );
    const { result, events } = await runToEnd(llmInput('Quote AAPL'));
    expect(result.final?.text).toBe('AAPL quoted after a retry.');
    const results = events.filter((e): e is Extract<RunEvent, { type: 'tool_result' }> => e.type === 'tool_result');
    expect(results.map((e) => [e.toolCallId, e.status, e.error?.type])).toEqual([
      ['bad1', 'error', 'invalid_arguments'],
      ['good1', 'ok', undefined],
    ]);
    const second = sentMessages()[1] ?? [];
    // The model sees its own raw arguments, then the refusal with a retry hint.
    expect(second[2]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'bad1', function: { arguments: '{"symbol": "AAPL"' } }] });
    expect(second[3]).toMatchObject({ role: 'tool', tool_call_id: 'bad1', content: expect.stringContaining('retryHint') });
    expect(events.some((e) => e.type === 'note' && e.note.labels?.kind === 'malformed_arguments')).toBe(true);
  });

  it('retries a 429 by the activity retry policy, then succeeds', async () => {
    fake.script(rateLimited(1), say('Fine after waiting.'));
    const { result, workflowId } = await runToEnd(llmInput('Hello'));
    expect(result.final?.text).toBe('Fine after waiting.');
    expect(fake.chatRequests).toHaveLength(2);
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    const started = history.events?.find((e) => e.activityTaskStartedEventAttributes)?.activityTaskStartedEventAttributes;
    expect(started?.attempt).toBe(2);
  });

  it('fails the run with model_bad_request on a 400, without retrying', async () => {
    fake.script(badRequest());
    const failure = await runFailure(llmInput('Hello'));
    expect(failure.type).toBe('model_bad_request');
    expect(failure.message).toMatch(/gpt-4o-mini.*What to do/);
    expect(fake.chatRequests).toHaveLength(1);
  });

  it('fails the run with model_context_length when the provider says the context is exceeded', async () => {
    fake.script(contextLengthExceeded());
    expect((await runFailure(llmInput('Hello'))).type).toBe('model_context_length');
  });

  it('retries answers that ended early (empty 200 body, cut-off stream) and completes with the full answer', async () => {
    fake.script(emptyBody(), cutOff(say('Your watchlist is TSLA and AA'), 3), say('Your watchlist is TSLA and AAPL.'));
    const { result } = await runToEnd(llmInput('What is on my list?'));
    expect(result).toMatchObject({ status: 'completed', final: { text: 'Your watchlist is TSLA and AAPL.' } });
    expect(fake.chatRequests).toHaveLength(3);
  });

  it('fails at once, without retries, on a 500 that reports a refused parameter and on llama-server context overflow', async () => {
    fake.script(validationError500('Cannot use tools with stream'));
    expect((await runFailure(llmInput('Hello'))).type).toBe('model_bad_request');
    fake.script(llamaContextOverflow());
    expect((await runFailure(llmInput('Hello'))).type).toBe('model_context_length');
    expect(fake.chatRequests).toHaveLength(2);
  });

  it('runs tool turns on a server that refuses content: null and reports no usage; the cost report shows the unknown calls', async () => {
    fake.quirks({ rejectNullContent: true, omitUsage: true }).script(callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'q1')), say('AAPL is quoted.'));
    const { result, events } = await runToEnd(llmInput('Quote AAPL'));
    expect(result).toMatchObject({ status: 'completed', final: { text: 'AAPL is quoted.' } });
    expect(result.cost.tokens).toEqual({ used: 0, unknownCalls: 2 });
    expect(events.filter((e) => e.type === 'note' && e.note.labels?.kind === 'no_usage')).toHaveLength(2);
  });

  it('requests structured output and repairs an invalid answer once', async () => {
    const valid = { watchlist: ['AAPL'], quotes: [{ symbol: 'AAPL', price: 123.4 }], summary: 'AAPL at 123.4' };
    fake.script(
      callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'q1')),
      say(JSON.stringify({ ...valid, quotes: [{ symbol: 'AAPL', price: 'high' }] })),
      say(JSON.stringify(valid)),
    );
    const { result, events } = await runToEnd(llmInput('Report on my watchlist', { agent: 'watchlist-llm-report', sessionState: { watchlist: ['AAPL'] } }));
    expect(result.final?.structured).toEqual(valid);
    expect(fake.chatRequests.every((r) => r.body?.response_format?.json_schema.name === 'watchlist_report')).toBe(true);
    const repair = sentMessages()[2] ?? [];
    expect(repair.slice(-2)).toEqual([
      { role: 'assistant', content: expect.stringContaining('"high"') },
      { role: 'user', content: expect.stringContaining('quotes.0.price') },
    ]);
    expect(events.filter((e) => e.type === 'note' && e.note.labels?.kind === 'repair')).toHaveLength(1);
  });

  it('ends the run through a Finalize turn without tools when the token budget is spent', async () => {
    fake.script(callTools(toolCall('get_quote', { symbol: 'AAPL' })), callTools(toolCall('get_quote', { symbol: 'TSLA' })), say('Budget spent; AAPL and TSLA quoted.'));
    const { result, events } = await runToEnd(llmInput('Keep quoting', { policy: { maxTokens: 50 } }));
    expect(result).toMatchObject({ status: 'completed', finalizeReason: 'token_budget', final: { text: 'Budget spent; AAPL and TSLA quoted.' } });
    const finalizeRequest = fake.chatRequests[2]?.body;
    expect(finalizeRequest?.tools).toBeUndefined();
    expect(finalizeRequest?.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('token_budget') });
    expect(events.filter((e) => e.type === 'finalize_requested')).toHaveLength(1);
  });

  it('rebuilds the transcript through the query when the worker cache misses', async () => {
    fake.script(
      callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'c1')),
      dynamic(() => {
        cache.clear(); // as if another worker (or a restarted one) took the next call
        return callTools(toolCall('get_quote', { symbol: 'TSLA' }, 'c2'));
      }),
      say('done'),
    );
    const { result, workflowId } = await runToEnd(llmInput('Quote AAPL then TSLA'));
    expect(result.status).toBe('completed');
    expect(fetches.filter((f) => f.workflowId === workflowId)).toEqual([{ workflowId, from: 0, to: 3 }]);
    const last = sentMessages()[2] ?? [];
    expect(last.map((m) => (m.role === 'tool' ? `tool:${m.tool_call_id}` : m.role))).toEqual(['system', 'user', 'assistant', 'tool:c1', 'assistant', 'tool:c2']);
    expect(last[1]).toEqual({ role: 'user', content: 'Quote AAPL then TSLA' });
  });

  it('passes a large message by reference: the activity input stays small, the worker reads it through the query', async () => {
    const long = `Quote AAPL. ${'background '.repeat(4_000)}`;
    fake.script(say('ok'));
    const { workflowId } = await runToEnd(llmInput(long));
    const [first] = await callModelInputs(workflowId);
    expect(first).toMatchObject({ baseCount: 1, newMessages: [] });
    expect(fetches.filter((f) => f.workflowId === workflowId)).toEqual([{ workflowId, from: 0, to: 1 }]);
    expect(sentMessages()[0]?.[1]).toEqual({ role: 'user', content: long });
  });
});

describe('a session of an LLM agent takes a message while its run is active (whenBusy)', () => {
  const userTexts = (messages: FakeChatMessage[]): unknown[] => messages.filter((m) => m.role === 'user').map((m) => m.content);
  const awaitingApproval = async (workflowId: string) =>
    waitFor('the approval request', async () => {
      const pending = await agents.pendingInputs(workflowId).catch(() => undefined);
      return pending?.approvals.length ? pending.approvals[0] : undefined;
    });

  it('steer: the model sees the message as the newest user message at its next call', async () => {
    const sessionId = `llm-steer-${Date.now()}`;
    await agents.openSession(sessionId, { agent: 'watchlist-llm', sessionState: { watchlist: [] } });
    fake.script(callTools(toolCall('add_to_watchlist', { symbols: ['AAPL'] }, 'a1')), say('Added AAPL, and noted MSFT.'));
    const record = await agents.sendMessage(sessionId, { content: 'Add AAPL' });
    const approval = await awaitingApproval(record.workflowId);
    const steered = await agents.sendMessage(sessionId, { content: 'Also remember MSFT', whenBusy: 'steer' });
    expect(steered).toMatchObject({ runNumber: 1, delivery: 'steered' });
    await agents.decide(record.workflowId, { toolCallId: approval.toolCallId, decision: 'approve' });
    const result = await agents.result(record.workflowId);
    expect(result.steered).toEqual([steered.messageId]);
    const [firstCall, secondCall] = sentMessages();
    expect(userTexts(firstCall!)).toEqual(['Add AAPL']);
    expect(userTexts(secondCall!)).toEqual(['Add AAPL', 'Also remember MSFT']);
    await agents.closeSession(sessionId);
  });

  it('interrupt: the run ends at once and the model gets the new message with the conversation so far', async () => {
    const sessionId = `llm-interrupt-${Date.now()}`;
    await agents.openSession(sessionId, { agent: 'watchlist-llm', sessionState: { watchlist: [] } });
    fake.script(callTools(toolCall('add_to_watchlist', { symbols: ['AAPL'] }, 'i1')), say('MSFT it is.'));
    const record = await agents.sendMessage(sessionId, { content: 'Add AAPL' });
    await awaitingApproval(record.workflowId);
    const next = await agents.sendMessage(sessionId, { content: 'No, add MSFT instead', whenBusy: 'interrupt' });
    expect(next).toMatchObject({ runNumber: 2, delivery: 'next' });
    expect((await agents.result(record.workflowId)).status).toBe('terminated');
    expect((await agents.result(next.workflowId)).final?.text).toBe('MSFT it is.');
    expect(userTexts(sentMessages()[1]!)).toEqual(['Add AAPL', 'No, add MSFT instead']);
    await agents.closeSession(sessionId);
  });

  /**
   * The `planning` cell of the policy × state table: the second message arrives while the run's
   * planner is in the middle of its model call (the fake holds the answer until the test lets it
   * go). `answer` is what the held call answers when it is let go: interrupt and rollback never let
   * it go, their run ends first.
   */
  const planningCells = [
    { policy: 'enqueue', answer: 'final' },
    { policy: 'reject', answer: 'final' },
    { policy: 'interrupt', answer: 'never' },
    { policy: 'rollback', answer: 'never' },
    { policy: 'steer', answer: 'tool call' },
    { policy: 'steer', answer: 'final' },
  ] as const;
  it.each(planningCells)('while the planner waits for its model call: $policy (held answer: $answer)', async ({ policy, answer }) => {
    const sessionId = `llm-planning-${policy}-${answer.replace(/ /g, '-')}-${Date.now()}`;
    await agents.openSession(sessionId, { agent: 'watchlist-llm', sessionState: { watchlist: [] } });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let onHeld!: () => void;
    const inTheCall = new Promise<void>((resolve) => (onHeld = resolve));
    const heldAnswer = answer === 'tool call' ? callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'q1')) : say('First answer.');
    fake.script(held(heldAnswer, released, onHeld));
    const first = await agents.sendMessage(sessionId, { content: 'Quote AAPL' });
    await inTheCall;
    const second = { content: 'Quote MSFT too', whenBusy: policy };
    expect(await callModelInputs(first.workflowId)).toHaveLength(1);

    if (policy === 'reject') {
      await expect(agents.sendMessage(sessionId, second)).rejects.toMatchObject({ type: 'rejected', message: expect.stringContaining(first.workflowId) });
      release();
      expect((await agents.result(first.workflowId)).final?.text).toBe('First answer.');
      expect((await agents.session(sessionId).status()).runs.map((r) => r.runNumber)).toEqual([1]);
      await agents.closeSession(sessionId);
      return;
    }
    if (policy === 'steer') {
      // The held answer is kept: a tool call runs and the model sees the message at its next call;
      // a final answer ends the run, and the message it never saw runs next as its own run.
      fake.script(say('Second answer.'));
      const steered = await agents.sendMessage(sessionId, second);
      expect(steered).toMatchObject({ runNumber: 1, delivery: 'steered' });
      release();
      const result = await agents.result(first.workflowId);
      if (answer === 'tool call') {
        expect(result).toMatchObject({ status: 'completed', final: { text: 'Second answer.' }, steered: [steered.messageId] });
        const [, next] = sentMessages();
        expect(userTexts(next!)).toEqual(['Quote AAPL', 'Quote MSFT too']);
        expect(next!.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
      } else {
        expect(result).toMatchObject({ status: 'completed', final: { text: 'First answer.' } });
        expect(result.steered).toBeUndefined();
        const report = await waitFor('the steered message to run as its own run', async () => {
          const r = await agents.session(sessionId).status();
          return r.runs[1]?.status === 'completed' ? r : undefined;
        });
        expect(report.runs[1]).toMatchObject({ runNumber: 2, messageId: steered.messageId, delivery: 'next' });
        expect(sentMessages()[1]!.filter((m) => m.role !== 'system').map((m) => [m.role, m.content])).toEqual([
          ['user', 'Quote AAPL'],
          ['assistant', 'First answer.'],
          ['user', 'Quote MSFT too'],
        ]);
      }
      await agents.closeSession(sessionId);
      return;
    }

    fake.script(say('Second answer.'));
    const next = await agents.sendMessage(sessionId, second);
    expect([next.runNumber, next.delivery]).toEqual([2, policy === 'enqueue' ? undefined : 'next']);
    if (policy === 'enqueue') release();
    const ended = await agents.result(first.workflowId);
    expect((await agents.result(next.workflowId)).final?.text).toBe('Second answer.');
    const conversation = sentMessages()[1]!.filter((m) => m.role !== 'system').map((m) => [m.role, m.content]);
    if (policy === 'enqueue') {
      expect(ended.final?.text).toBe('First answer.');
      expect(conversation).toEqual([
        ['user', 'Quote AAPL'],
        ['assistant', 'First answer.'],
        ['user', 'Quote MSFT too'],
      ]);
    } else {
      // The held model call is cancelled: its answer never comes into the run, which ends at once.
      expect(ended.status).toBe('terminated');
      expect(ended.final).toBeUndefined();
      const history = await env.client.workflow.getHandle(first.workflowId).fetchHistory();
      expect(history.events?.some((e) => e.activityTaskCancelRequestedEventAttributes)).toBe(true);
      expect((await agents.events(first.workflowId, 0, 1000)).events.filter((e) => e.type === 'plan')).toEqual([]);
      expect(conversation).toEqual(policy === 'interrupt' ? [['user', 'Quote AAPL'], ['user', 'Quote MSFT too']] : [['user', 'Quote MSFT too']]);
      const report = await agents.session(sessionId).status();
      expect(report.runs.map((r) => [r.runNumber, r.endedBy])).toEqual([
        [1, policy],
        [2, undefined],
      ]);
    }
    await agents.closeSession(sessionId);
  });
});
