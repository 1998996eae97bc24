import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { TokenDelta } from '../../contracts/deltas';
import type { DeltaSink } from './delta-publisher';

/** Which model call the deltas of a tap belong to. */
export interface DeltaSource {
  readonly workflowId: string;
  /** The run's execution: with the activity id and attempt, what a delta signature binds. */
  readonly runId?: string;
  readonly activityId: string;
  readonly attempt: number;
  readonly turn?: number;
}

/**
 * Turns the chunks of one streamed model call into token deltas for a {@link DeltaSink}:
 * text fragments and tool-call argument fragments, numbered in order. A sink that throws is
 * ignored: deltas never fail a model call.
 */
export class DeltaTap {
  private seq = 0;
  private readonly calls = new Map<number, { id?: string; name?: string }>();

  constructor(
    private readonly sink: DeltaSink,
    private readonly source: DeltaSource,
  ) {}

  /** Publishes the deltas of one chunk. */
  add(chunk: ChatCompletionChunk): void {
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      if (choice.delta?.content) this.emit({ kind: 'text', text: choice.delta.content });
      for (const call of choice.delta?.tool_calls ?? []) {
        const index = typeof call.index === 'number' ? call.index : Math.max(0, this.calls.size - 1);
        const known = this.calls.get(index) ?? {};
        if (call.id) known.id = call.id;
        if (call.function?.name && !known.name) known.name = call.function.name;
        this.calls.set(index, known);
        const text = call.function?.arguments ?? '';
        this.emit({
          kind: 'tool-args',
          text,
          callIndex: index,
          ...(known.id ? { toolCallId: known.id } : {}),
          ...(known.name ? { toolName: known.name } : {}),
        });
      }
    }
  }

  /** Sends what the sink buffered, waiting at most `timeoutMs`. */
  async flush(timeoutMs = 250): Promise<void> {
    try {
      await this.sink.flush?.(timeoutMs);
    } catch {
      // best effort
    }
  }

  private emit(part: Pick<TokenDelta, 'kind' | 'text' | 'callIndex' | 'toolCallId' | 'toolName'>): void {
    const { workflowId, runId, activityId, attempt, turn } = this.source;
    try {
      this.sink.publish({ workflowId, ...(runId !== undefined ? { runId } : {}), activityId, attempt, ...(turn !== undefined ? { turn } : {}), seq: this.seq++, ...part, at: Date.now() });
    } catch {
      // best effort: a broken sink must not fail the model call
    }
  }
}
