/**
 * The model activity against the behaviours of real OpenAI-compatible servers, each reproduced
 * by the fake server and driven through the real `openai` client.
 */
import { CancelledFailure } from '@temporalio/common';
import OpenAI from 'openai';
import type { Message } from '../../contracts';
import { createModelActivities, type ModelActivityDependencies } from '../../activities/model';
import { watchlistLlmAgent, watchlistReportAgent } from '../../examples/watchlist/agent';
import { defineLlmAgent, type LlmAgentDefinition, type ModelRequestSettings } from '../../workflows/planners/llm';
import {
  callTools,
  cutOff,
  emptyBody,
  FakeOpenAIServer,
  llamaContextOverflow,
  say,
  serverError,
  stall,
  toolCall,
  validationError500,
} from '../../testing/fake-model';
import { findTestAgent } from '../support/agents';
import { callModelFailure, modelCallInput, quietActivityEnv, quoteRequest, runCallModel } from '../support/model-activity-harness';

let fake: FakeOpenAIServer;
let openai: OpenAI;

function tuned(name: string, request: ModelRequestSettings, base: LlmAgentDefinition = watchlistLlmAgent): LlmAgentDefinition {
  return defineLlmAgent({ ...base, name, llm: { ...base.llm, request } });
}

const tunedAgents = [
  tuned('watchlist-tuned', { maxTokens: 256, temperature: 0.2, toolChoice: 'required', parallelToolCalls: false }),
  tuned('watchlist-forced', { toolChoice: { name: 'get_quote' } }),
  tuned('watchlist-no-stream', { stream: false }),
  tuned('report-by-prompt', { structuredOutput: 'prompt' }, watchlistReportAgent),
];

const deps = (): ModelActivityDependencies => ({ openai, findAgent: (name) => tunedAgents.find((a) => a.name === name) ?? findTestAgent(name) });

const reportCall = { agent: 'watchlist-llm-report', tools: [], finalize: true, outputSchema: 'watchlist_report' };
const report = '{"watchlist":[],"quotes":[],"summary":"empty"}';

beforeAll(async () => {
  fake = await FakeOpenAIServer.start();
  openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
});

afterAll(async () => {
  await fake.close();
});

afterEach(() => {
  expect(fake.errors).toEqual([]);
  expect(fake.remaining).toBe(0);
  fake.reset();
});

describe('streams that end early', () => {
  it('a text stream cut off before its finish reason fails retryable model_response_incomplete, not as a shorter answer', async () => {
    fake.script(cutOff(say('The watchlist holds TSLA, AAPL and MSFT.'), 3));
    const err = await callModelFailure(deps(), modelCallInput());
    expect([err.type, err.nonRetryable]).toEqual(['model_response_incomplete', false]);
    expect(err.message).toContain('without a finish reason');
  });

  it('a tool call cut off mid-arguments is not returned as a call with truncated JSON', async () => {
    fake.script(cutOff(callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'c1')), 3));
    expect((await callModelFailure(deps(), modelCallInput())).type).toBe('model_response_incomplete');
  });

  it('an HTTP 200 with an empty body (llama-server context overflow) fails model_response_incomplete, not an empty final answer', async () => {
    fake.script(emptyBody());
    const err = await callModelFailure(deps(), modelCallInput());
    expect([err.type, err.nonRetryable]).toEqual(['model_response_incomplete', false]);
    expect(err.message).toContain('empty stream');
  });

  it('a call cancelled mid-stream surfaces as the cancellation', async () => {
    const env = quietActivityEnv();
    const stalled = new Promise<void>((resolve) => fake.script(stall(say('a long answer that never finishes'), 2, resolve)));
    const running = env.run(createModelActivities(deps()).callModel, modelCallInput()).catch((e: unknown) => e);
    await stalled;
    env.cancel();
    expect(await running).toBeInstanceOf(CancelledFailure);
  });

  it('a call cancelled while it reads chunks surfaces as the cancellation, not as the answer read so far', async () => {
    const env = quietActivityEnv();
    env.on('heartbeat', () => env.cancel());
    fake.script(say('an answer long enough to arrive in several chunks, read after the cancellation'));
    const outcome = await env.run(createModelActivities(deps()).callModel, modelCallInput()).catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(CancelledFailure);
  });
});

describe('error classification', () => {
  it("llama-server's exceed_context_size_error → non-retryable model_context_length", async () => {
    fake.script(llamaContextOverflow());
    const err = await callModelFailure(deps(), modelCallInput());
    expect([err.type, err.nonRetryable]).toEqual(['model_context_length', true]);
  });

  it('a 500 that reports a refused parameter → non-retryable model_bad_request, not an outage', async () => {
    fake.script(validationError500(), validationError500('Cannot use tools with stream'));
    for (let i = 0; i < 2; i++) {
      const err = await callModelFailure(deps(), modelCallInput());
      expect([err.type, err.nonRetryable]).toEqual(['model_bad_request', true]);
    }
  });

  it('a plain 500 stays a retryable outage', async () => {
    fake.script(serverError());
    expect((await callModelFailure(deps(), modelCallInput())).type).toBe('model_unavailable');
  });
});

describe('what servers accept', () => {
  const afterToolCall: Message[] = [
    quoteRequest,
    { role: 'assistant', toolCalls: [{ id: 'c1', name: 'get_quote', args: { symbol: 'AAPL' } }] },
    { role: 'tool', toolCallId: 'c1', name: 'get_quote', content: '{"price":1}' },
  ];

  it('the turn after a tool call is accepted by a server that refuses content: null', async () => {
    fake.quirks({ rejectNullContent: true }).script(say('AAPL is 1'));
    expect((await runCallModel(deps(), modelCallInput({ newMessages: afterToolCall }))).content).toBe('AAPL is 1');
  });

  it('parallel tool calls streamed without index are assembled, none dropped', async () => {
    fake.quirks({ omitToolCallIndex: true }).script(callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'c1'), toolCall('get_quote', { symbol: 'MSFT' }, 'c2')));
    expect((await runCallModel(deps(), modelCallInput())).toolCalls).toEqual([
      { id: 'c1', name: 'get_quote', arguments: '{"symbol":"AAPL"}' },
      { id: 'c2', name: 'get_quote', arguments: '{"symbol":"MSFT"}' },
    ]);
  });

  it('a stream without usage gives an answer without usage (the planner reports it unknown)', async () => {
    fake.quirks({ omitUsage: true }).script(say('hi'));
    const answer = await runCallModel(deps(), modelCallInput());
    expect(answer.usage).toBeUndefined();
    expect(answer.finishReason).toBe('stop');
  });
});

describe('request settings of the agent', () => {
  it('sends max_tokens, temperature, tool_choice and parallel_tool_calls', async () => {
    fake.script(say('ok'));
    await runCallModel(deps(), modelCallInput({ agent: 'watchlist-tuned' }));
    expect(fake.chatRequests[0]?.body).toMatchObject({ max_tokens: 256, temperature: 0.2, tool_choice: 'required', parallel_tool_calls: false, stream: true });
  });

  it('forces one tool by name, and sends no tool settings on a turn without tools', async () => {
    fake.script(say('ok'), say('done'));
    await runCallModel(deps(), modelCallInput({ agent: 'watchlist-forced' }));
    await runCallModel(deps(), modelCallInput({ agent: 'watchlist-tuned', tools: [], finalize: true }));
    expect(fake.chatRequests[0]?.body?.tool_choice).toEqual({ type: 'function', function: { name: 'get_quote' } });
    expect(fake.chatRequests[1]?.body).toMatchObject({ max_tokens: 256 });
    expect(fake.chatRequests[1]?.body?.tool_choice).toBeUndefined();
    expect(fake.chatRequests[1]?.body?.parallel_tool_calls).toBeUndefined();
  });

  it('sends none of them by default', async () => {
    fake.script(say('ok'));
    await runCallModel(deps(), modelCallInput());
    const body = fake.chatRequests[0]?.body ?? {};
    expect(['max_tokens', 'temperature', 'tool_choice', 'parallel_tool_calls'].filter((k) => k in body)).toEqual([]);
  });

  it('stream: false makes one plain request, which a server that cannot stream tool calls answers', async () => {
    fake.quirks({ rejectStreamingTools: true }).script(callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'c1')));
    const answer = await runCallModel(deps(), modelCallInput({ agent: 'watchlist-no-stream' }));
    expect(fake.chatRequests[0]?.body?.stream).toBeFalsy();
    expect(answer).toMatchObject({ toolCalls: [{ id: 'c1', name: 'get_quote', arguments: '{"symbol":"AAPL"}' }], finishReason: 'tool_calls', usage: { totalTokens: 30 } });
  });
});

describe('structured output without json_schema', () => {
  it('falls back to the schema in the system prompt when the server refuses json_schema, and keeps to it for that model', async () => {
    const activities = createModelActivities(deps());
    fake.quirks({ rejectJsonSchema: true }).script(say(report), say(report));
    const first = await runCallModel(activities, modelCallInput(reportCall));
    await runCallModel(activities, modelCallInput(reportCall));
    expect(first.content).toBe(report);
    const sent = fake.chatRequests.map((r) => r.body);
    expect(sent.map((b) => b?.response_format?.type)).toEqual(['json_schema', undefined, undefined]);
    const system = sent[1]?.messages[0];
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('The watchlist is: ["TSLA"]');
    expect(system?.content).toContain('"watchlist_report"');
    expect(system?.content).toContain('"quotes"');
  });

  it("structuredOutput: 'prompt' never sends response_format", async () => {
    fake.script(say(report));
    await runCallModel(deps(), modelCallInput({ ...reportCall, agent: 'report-by-prompt' }));
    expect(fake.chatRequests[0]?.body?.response_format).toBeUndefined();
    expect(fake.chatRequests[0]?.body?.messages[0]?.content).toContain('JSON Schema');
  });
});
