import { ApplicationFailure } from '@temporalio/activity';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ModelAnswer, ModelUsage } from '../../contracts/model-call';

interface PartialCall {
  id?: string;
  name: string;
  arguments: string;
}

/** Everything an answer is made of, streamed or not. */
interface AnswerParts {
  readonly content: string;
  readonly calls: readonly PartialCall[];
  readonly finishReason: string | undefined;
  readonly usage: ModelUsage | undefined;
  readonly model: string | undefined;
  /** Chunks the stream had (undefined for a non-streaming completion). */
  readonly chunks?: number;
}

function usageOf(usage: ChatCompletion['usage'] | null | undefined): ModelUsage | undefined {
  if (!usage) return undefined;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.total_tokens, ...(cached ? { cachedPromptTokens: cached } : {}) };
}

function incomplete(chunks: number | undefined): ApplicationFailure {
  const what =
    chunks === 0
      ? 'the provider answered HTTP 200 with an empty stream (no chunks); llama-server does this when the prompt exceeds its context size'
      : chunks === undefined
        ? 'the provider returned a completion without a finish reason'
        : `the stream ended after ${chunks} chunk(s) without a finish reason (cut off by the server, a proxy or the network)`;
  return ApplicationFailure.retryable(`${what}; the partial answer was discarded`, 'model_response_incomplete');
}

/**
 * The answer the parts add up to. Only an answer that ended with a finish reason is one:
 * anything else (cut off, cancelled, empty) would be taken for a complete, shorter answer.
 *
 * @throws ApplicationFailure `model_response_incomplete` (retryable) without a finish reason;
 * `model_invalid_response` (retryable) when a tool call has no name.
 */
function toAnswer(parts: AnswerParts): ModelAnswer {
  if (!parts.finishReason) throw incomplete(parts.chunks);
  const unnamed = parts.calls.findIndex((c) => !c.name);
  if (unnamed >= 0) {
    throw ApplicationFailure.retryable(`the provider sent tool call #${unnamed} without a function name`, 'model_invalid_response');
  }
  return {
    ...(parts.content ? { content: parts.content } : {}),
    toolCalls: parts.calls.map((c) => ({ ...(c.id ? { id: c.id } : {}), name: c.name, arguments: c.arguments })),
    finishReason: parts.finishReason,
    ...(parts.usage ? { usage: parts.usage } : {}),
    ...(parts.model ? { model: parts.model } : {}),
  };
}

/**
 * The answer of a non-streaming Chat Completion (the `stream: false` request setting).
 *
 * @throws ApplicationFailure as the streamed answer does.
 */
export function completionAnswer(completion: ChatCompletion): ModelAnswer {
  const choice = completion.choices?.find((c) => c.index === 0) ?? completion.choices?.[0];
  const message = choice?.message;
  const calls = (message?.tool_calls ?? []).flatMap((c): PartialCall[] =>
    c.type === 'function' ? [{ ...(c.id ? { id: c.id } : {}), name: c.function?.name ?? '', arguments: c.function?.arguments ?? '' }] : [],
  );
  return toAnswer({
    content: message?.content ?? '',
    calls,
    finishReason: choice?.finish_reason ?? undefined,
    usage: usageOf(completion.usage),
    model: completion.model || undefined,
  });
}

type ToolCallDelta = NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number];

/**
 * Folds a Chat Completions stream into one answer: text deltas are joined, tool-call argument
 * deltas are joined per call index (parallel calls interleave), the usage chunk is kept.
 * Only the final answer leaves the activity; deltas never reach workflow state.
 */
export class StreamAccumulator {
  private content = '';
  private readonly calls: PartialCall[] = [];
  private finishReason: string | undefined;
  private usage: ModelUsage | undefined;
  private model: string | undefined;
  /** The tool calls streamed so far, by index (early dispatch looks at them). */
  get streamedCalls(): readonly (PartialCall | undefined)[] {
    return this.calls;
  }

  /** Chunks seen so far (heartbeat detail). */
  chunks = 0;

  /**
   * Adds one streamed chunk.
   *
   * @throws ApplicationFailure `model_invalid_response` for a tool-call delta that belongs to no call.
   */
  add(chunk: ChatCompletionChunk): void {
    this.chunks += 1;
    if (chunk.model) this.model = chunk.model;
    const usage = usageOf(chunk.usage);
    if (usage) this.usage = usage;
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      if (choice.delta?.content) this.content += choice.delta.content;
      for (const delta of choice.delta?.tool_calls ?? []) {
        const slot = this.slotFor(delta);
        if (delta.id) slot.id = delta.id;
        if (delta.function?.name && !slot.name) slot.name = delta.function.name;
        if (delta.function?.arguments) slot.arguments += delta.function.arguments;
      }
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  /**
   * The call a delta belongs to. By `index` when it has one. Some servers send no `index`:
   * then a delta with an id or a function name starts a new call (unless it repeats the id of
   * the call being streamed), and bare argument fragments continue the current call.
   */
  private slotFor(delta: ToolCallDelta): PartialCall {
    const index: unknown = delta.index;
    if (typeof index === 'number' && Number.isInteger(index) && index >= 0) return (this.calls[index] ??= { name: '', arguments: '' });
    if (index !== undefined && index !== null) {
      throw ApplicationFailure.retryable(`the provider streamed a tool-call delta with an invalid index ${JSON.stringify(index)}`, 'model_invalid_response');
    }
    const current = this.calls.at(-1);
    const startsCall = delta.id ? delta.id !== current?.id : Boolean(delta.function?.name) && !(current && !current.name);
    if (!startsCall) {
      if (current) return current;
      throw ApplicationFailure.retryable('the provider streamed tool-call arguments without an index before any tool call started', 'model_invalid_response');
    }
    const slot: PartialCall = { name: '', arguments: '' };
    this.calls.push(slot);
    return slot;
  }

  /**
   * The answer the stream added up to.
   *
   * @throws ApplicationFailure `model_response_incomplete` (retryable) when the stream ended
   * without a finish reason; `model_invalid_response` (retryable) when a tool call has no name.
   */
  answer(): ModelAnswer {
    return toAnswer({
      content: this.content,
      calls: this.calls.filter((c): c is PartialCall => c !== undefined),
      finishReason: this.finishReason,
      usage: this.usage,
      model: this.model,
      chunks: this.chunks,
    });
  }
}
