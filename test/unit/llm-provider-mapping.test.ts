import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { ApplicationFailure } from '@temporalio/common';
import { retryAfterMs, StreamAccumulator, toChatMessages } from '../../activities/model';

function chunk(delta: ChatCompletionChunk.Choice.Delta, finish: ChatCompletionChunk.Choice['finish_reason'] = null): ChatCompletionChunk {
  return { id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] };
}

function headers(values: Record<string, string>): Pick<Headers, 'get'> {
  return { get: (name: string) => values[name] ?? null };
}

describe('StreamAccumulator', () => {
  it('joins text deltas and interleaved tool-call argument deltas by index', () => {
    const acc = new StreamAccumulator();
    acc.add(chunk({ content: 'Let me ' }));
    acc.add(chunk({ content: 'check.' }));
    acc.add(chunk({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'get_quote', arguments: '' } }] }));
    acc.add(chunk({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'get_quote', arguments: '{"sym' } }] }));
    acc.add(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"symbol":"A"}' } }] }));
    acc.add(chunk({ tool_calls: [{ index: 1, function: { arguments: 'bol":"B"}' } }] }, 'tool_calls'));
    acc.add({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
    expect(acc.answer()).toEqual({
      content: 'Let me check.',
      toolCalls: [
        { id: 'a', name: 'get_quote', arguments: '{"symbol":"A"}' },
        { id: 'b', name: 'get_quote', arguments: '{"symbol":"B"}' },
      ],
      finishReason: 'tool_calls',
      usage: { promptTokens: 5, completionTokens: 2, totalTokens: 7 },
      model: 'm',
    });
  });

  it('refuses a tool call without a name as a retryable model_invalid_response', () => {
    const acc = new StreamAccumulator();
    acc.add(chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }, 'tool_calls'));
    let err: unknown;
    try {
      acc.answer();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).toBe('model_invalid_response');
    expect((err as ApplicationFailure).nonRetryable).toBe(false);
  });
});

function failureOf(run: () => unknown): ApplicationFailure {
  try {
    run();
  } catch (err) {
    if (err instanceof ApplicationFailure) return err;
    throw err;
  }
  throw new Error('expected an ApplicationFailure');
}

describe('StreamAccumulator without finish reason', () => {
  it('refuses a stream that ended without a finish reason as a retryable model_response_incomplete', () => {
    const acc = new StreamAccumulator();
    acc.add(chunk({ content: 'The answer is ' }));
    const err = failureOf(() => acc.answer());
    expect([err.type, err.nonRetryable]).toEqual(['model_response_incomplete', false]);
    expect(err.message).toContain('after 1 chunk(s) without a finish reason');
  });

  it('names an empty stream as such (llama-server context overflow)', () => {
    const err = failureOf(() => new StreamAccumulator().answer());
    expect(err.type).toBe('model_response_incomplete');
    expect(err.message).toContain('empty stream');
  });
});

describe('StreamAccumulator tool-call deltas without index', () => {
  it('starts a call at each id or name and appends bare argument fragments to the current call', () => {
    const acc = new StreamAccumulator();
    const noIndex = (d: object): ChatCompletionChunk.Choice.Delta.ToolCall => d as ChatCompletionChunk.Choice.Delta.ToolCall;
    acc.add(chunk({ tool_calls: [noIndex({ id: 'a', type: 'function', function: { name: 'get_quote', arguments: '' } })] }));
    acc.add(chunk({ tool_calls: [noIndex({ function: { arguments: '{"symbol":' } })] }));
    acc.add(chunk({ tool_calls: [noIndex({ id: 'a', function: { arguments: '"A"}' } })] }));
    acc.add(chunk({ tool_calls: [noIndex({ function: { name: 'get_quote', arguments: '{"symbol":"B"}' } })] }, 'tool_calls'));
    expect(acc.answer().toolCalls).toEqual([
      { id: 'a', name: 'get_quote', arguments: '{"symbol":"A"}' },
      { name: 'get_quote', arguments: '{"symbol":"B"}' },
    ]);
  });

  it('refuses argument fragments without index before any call, loudly', () => {
    const acc = new StreamAccumulator();
    const err = failureOf(() => acc.add(chunk({ tool_calls: [{ function: { arguments: '{}' } } as ChatCompletionChunk.Choice.Delta.ToolCall] })));
    expect([err.type, err.nonRetryable]).toEqual(['model_invalid_response', false]);
  });
});

describe('retryAfterMs', () => {
  it('reads retry-after-ms, retry-after seconds and HTTP dates, and ignores nonsense', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(headers({ 'retry-after': '1.5' }))).toBe(1500);
    expect(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 1970 00:00:10 GMT' }), 4_000)).toBe(6_000);
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after': '86400' }))).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe('toChatMessages', () => {
  it('puts the instructions first and maps every role', () => {
    expect(
      toChatMessages('sys', [
        { role: 'system', content: 'injected' },
        { role: 'user', content: 'u' },
        { role: 'assistant', content: 'a' },
        { role: 'assistant', toolCalls: [{ id: 'c', name: 't', args: { x: 1 } }] },
        { role: 'tool', toolCallId: 'c', name: 't', content: 'r' },
      ]),
    ).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'system', content: 'injected' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: 'a' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 't', arguments: '{"x":1}' } }] },
      { role: 'tool', tool_call_id: 'c', content: 'r' },
    ]);
  });

  it('sends no system message without instructions', () => {
    expect(toChatMessages(undefined, [{ role: 'user', content: 'u' }])).toEqual([{ role: 'user', content: 'u' }]);
  });
});
