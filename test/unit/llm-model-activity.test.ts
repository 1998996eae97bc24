import type { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import type { Message } from '../../contracts';
import { createModelActivities, TranscriptCache, type ModelActivityDependencies, type TranscriptFetcher } from '../../activities/model';
import { findTestAgent } from '../support/agents';
import { callModelFailure, modelCallInput, quietActivityEnv, quoteRequest, runCallModel } from '../support/model-activity-harness';
import { chainDigest, emptyDigest, type ModelAnswer, type ModelCallInput } from '../../workflows/planners/llm';
import { badRequest, callTools, contextLengthExceeded, FakeOpenAIServer, rateLimited, say, serverError, toolCall } from '../../testing/fake-model';

let fake: FakeOpenAIServer;
let openai: OpenAI;

beforeAll(async () => {
  fake = await FakeOpenAIServer.start();
  openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
});

afterAll(async () => {
  await fake.close();
});

afterEach(() => {
  expect(fake.errors).toEqual([]);
  fake.reset();
});

const user = quoteRequest;
const input = modelCallInput;
const quiet = quietActivityEnv;

async function call(raw: ModelCallInput, deps: ModelActivityDependencies = { openai, findAgent: findTestAgent }): Promise<ModelAnswer> {
  return runCallModel(deps, raw);
}

async function failure(raw: ModelCallInput, deps: ModelActivityDependencies = { openai, findAgent: findTestAgent }): Promise<ApplicationFailure> {
  return callModelFailure(deps, raw);
}

describe('callModel activity', () => {
  it('streams parallel tool calls whose argument deltas are split and interleaved, with usage', async () => {
    fake.script(callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'c1'), toolCall('get_quote', { symbol: 'MSFT' }, 'c2')));
    const answer = await call(input());
    expect(answer).toEqual({
      toolCalls: [
        { id: 'c1', name: 'get_quote', arguments: '{"symbol":"AAPL"}' },
        { id: 'c2', name: 'get_quote', arguments: '{"symbol":"MSFT"}' },
      ],
      finishReason: 'tool_calls',
      usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 },
      model: 'gpt-test',
    });
  });

  it('sends a streaming request with the rendered system prompt, the conversation and the tool schemas', async () => {
    fake.script(say('hello'));
    await call(input());
    const body = fake.chatRequests[0]?.body;
    expect(body).toMatchObject({ model: 'gpt-test', stream: true, stream_options: { include_usage: true } });
    expect(body?.messages).toEqual([
      { role: 'system', content: 'The watchlist is: ["TSLA"]' },
      { role: 'user', content: 'quote AAPL and MSFT' },
    ]);
    expect(body?.tools?.map((t) => t.function.name)).toEqual(['get_quote', 'ask_clarification']);
    expect(body?.tools?.[0]?.function.parameters).toMatchObject({ type: 'object', required: ['symbol'] });
    expect(body?.response_format).toBeUndefined();
    expect(fake.requests[0]?.authorization).toBe('Bearer test-key');
  });

  it('sends no tools on a Finalize call and the output schema as response_format', async () => {
    fake.script(say('{"watchlist":[],"quotes":[],"summary":"empty"}'));
    await call(input({ agent: 'watchlist-llm-report', tools: [], finalize: true, outputSchema: 'watchlist_report' }));
    const body = fake.chatRequests[0]?.body;
    expect(body?.tools).toBeUndefined();
    expect(body?.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'watchlist_report', schema: { type: 'object' } } });
  });

  it('sends the transcript back in Chat Completions form, raw malformed arguments included', async () => {
    const history: Message[] = [
      user,
      { role: 'assistant', toolCalls: [{ id: 'c1', name: 'get_quote', args: '{"symbol": "AA' }] },
      { role: 'tool', toolCallId: 'c1', name: 'get_quote', content: '{"error":{"type":"invalid_arguments"}}' },
    ];
    fake.script(say('ok'));
    await call(input({ newMessages: history }));
    expect(fake.chatRequests[0]?.body?.messages.slice(2)).toEqual([
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_quote', arguments: '{"symbol": "AA' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '{"error":{"type":"invalid_arguments"}}' },
    ]);
  });

  it('rebuilds the prefix from the fetcher on a cache miss', async () => {
    const history: Message[] = [user, { role: 'assistant', content: 'Which list?' }, { role: 'user', content: 'mine' }];
    const fetchTranscript: TranscriptFetcher = async (_run, from, to) => history.slice(from, to);
    fake.script(say('ok'));
    await call(input({ baseCount: 2, baseDigest: chainDigest(emptyDigest, history.slice(0, 2)), newMessages: history.slice(2) }), { openai, findAgent: findTestAgent, fetchTranscript, cache: new TranscriptCache() });
    expect(fake.chatRequests[0]?.body?.messages.slice(1)).toEqual(history);
  });

  it('429 → retryable model_rate_limited with the provider retry-after as the next delay', async () => {
    fake.script(rateLimited(2));
    const err = await failure(input());
    expect(err.type).toBe('model_rate_limited');
    expect(err.nonRetryable).toBe(false);
    expect(err.nextRetryDelay).toBe(2000);
  });

  it('500 → retryable model_unavailable', async () => {
    fake.script(serverError());
    const err = await failure(input());
    expect([err.type, err.nonRetryable]).toEqual(['model_unavailable', false]);
  });

  it('400 → non-retryable model_bad_request naming the model', async () => {
    fake.script(badRequest());
    const err = await failure(input());
    expect([err.type, err.nonRetryable]).toEqual(['model_bad_request', true]);
    expect(err.message).toContain('gpt-test');
  });

  it('context_length_exceeded → non-retryable model_context_length', async () => {
    fake.script(contextLengthExceeded());
    const err = await failure(input());
    expect([err.type, err.nonRetryable]).toEqual(['model_context_length', true]);
  });

  it('401 → non-retryable model_auth', async () => {
    fake.script({ kind: 'error', status: 401, message: 'Incorrect API key provided' });
    expect((await failure(input())).type).toBe('model_auth');
  });

  it('a worker without an endpoint fails with model_config', async () => {
    const err = await failure(input(), {});
    expect([err.type, err.nonRetryable]).toEqual(['model_config', true]);
    expect(err.message).toContain('OPENAI_API_KEY');
  });

  it('an agent or tool unknown to the worker fails with model_config before any request', async () => {
    expect((await failure(input({ agent: 'nope' }))).type).toBe('model_config');
    expect((await failure(input({ tools: ['teleport'] }))).message).toContain('teleport');
    expect((await failure(input({ agent: 'watchlist' }))).message).toContain('no LLM agent');
    expect(fake.requests).toEqual([]);
  });

  it('invalid input fails with invalid_input', async () => {
    const err = await failure({ ...input(), baseDigest: 'nope' });
    expect([err.type, err.nonRetryable]).toEqual(['invalid_input', true]);
  });

  it('heartbeats while it streams', async () => {
    fake.script(say('a fairly long answer that streams in several chunks'));
    const env = quiet();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    await env.run(createModelActivities({ openai, findAgent: findTestAgent }).callModel, input());
    expect(beats.length).toBeGreaterThan(0);
  });
});
