import { ApplicationFailure } from '@temporalio/activity';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ModelAnswer, ModelUsage } from '../../workflows/planners/llm';

interface PartialCall {
  id?: string;
  name: string;
  arguments: string;
}

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
  /** Chunks seen so far (heartbeat detail). */
  chunks = 0;

  /** Adds one streamed chunk. */
  add(chunk: ChatCompletionChunk): void {
    this.chunks += 1;
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) {
      this.usage = {
        promptTokens: chunk.usage.prompt_tokens,
        completionTokens: chunk.usage.completion_tokens,
        totalTokens: chunk.usage.total_tokens,
      };
    }
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) continue;
      if (choice.delta?.content) this.content += choice.delta.content;
      for (const delta of choice.delta?.tool_calls ?? []) {
        const slot = (this.calls[delta.index] ??= { name: '', arguments: '' });
        if (delta.id) slot.id = delta.id;
        if (delta.function?.name && !slot.name) slot.name = delta.function.name;
        if (delta.function?.arguments) slot.arguments += delta.function.arguments;
      }
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  /**
   * The answer the stream added up to.
   *
   * @throws ApplicationFailure `model_invalid_response` (retryable) when a tool call has no name.
   */
  answer(): ModelAnswer {
    const toolCalls = this.calls.filter((c): c is PartialCall => c !== undefined);
    const unnamed = toolCalls.findIndex((c) => !c.name);
    if (unnamed >= 0) {
      throw ApplicationFailure.retryable(`the provider streamed tool call #${unnamed} without a function name`, 'model_invalid_response');
    }
    return {
      ...(this.content ? { content: this.content } : {}),
      toolCalls: toolCalls.map((c) => ({ ...(c.id ? { id: c.id } : {}), name: c.name, arguments: c.arguments })),
      ...(this.finishReason ? { finishReason: this.finishReason } : {}),
      ...(this.usage ? { usage: this.usage } : {}),
      ...(this.model ? { model: this.model } : {}),
    };
  }
}
