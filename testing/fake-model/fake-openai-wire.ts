/** What the fake puts on the wire: SSE chunks, plain completions and error bodies, OpenAI-shaped. */
import { defaultFakeUsage, type FakeAnswer } from './fake-openai-script';

type AnswerStep = FakeAnswer;

/** How the wire differs from OpenAI's (see FakeQuirks). */
export interface WireOptions {
  readonly includeUsage: boolean;
  readonly omitToolCallIndex?: boolean;
  /** Each call's header and fragments together, one call after another (as OpenAI streams them). */
  readonly sequentialCalls?: boolean;
}

interface WireCall {
  id: string;
  name: string;
  arguments: string;
}

function wireCalls(step: AnswerStep, seq: number): WireCall[] {
  if (step.kind !== 'tool_calls') return [];
  return step.calls.map((c, i) => ({
    id: c.id ?? `call_${seq}_${i}`,
    name: c.name,
    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
  }));
}

/** Splits text into `parts` pieces (some may be empty), so deltas cut through JSON tokens. */
export function splitInto(text: string, parts: number): string[] {
  const size = Math.ceil(text.length / parts) || 1;
  const pieces: string[] = [];
  for (let i = 0; i < parts; i++) pieces.push(text.slice(i * size, (i + 1) * size));
  return pieces;
}

/**
 * The SSE chunks of an answer: the role, content in small deltas, each tool call's header,
 * then argument fragments interleaved across calls (3 per call), the finish reason, and the
 * usage chunk when asked for. Without `index` (a quirk of some servers) interleaving would be
 * ambiguous, so each call's header is followed by its own fragments.
 */
export function streamChunks(step: AnswerStep, seq: number, model: string, options: WireOptions): unknown[] {
  const base = { id: `chatcmpl-fake-${seq}`, object: 'chat.completion.chunk', created: 1_700_000_000, model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): unknown => ({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })];
  const content = step.content ?? '';
  for (let i = 0; i < content.length; i += 10) chunks.push(chunk({ content: content.slice(i, i + 10) }));
  const calls = wireCalls(step, seq);
  const fragments = calls.map((c) => splitInto(c.arguments, 3));
  const header = (c: WireCall): Record<string, unknown> => ({ id: c.id, type: 'function', function: { name: c.name, arguments: '' } });
  if (options.sequentialCalls) {
    calls.forEach((c, index) => {
      chunks.push(chunk({ tool_calls: [{ index, ...header(c) }] }));
      for (const piece of fragments[index] ?? []) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
  } else if (options.omitToolCallIndex) {
    calls.forEach((c, index) => {
      chunks.push(chunk({ tool_calls: [header(c)] }));
      for (const piece of fragments[index] ?? []) chunks.push(chunk({ tool_calls: [{ function: { arguments: piece } }] }));
    });
  } else {
    calls.forEach((c, index) => chunks.push(chunk({ tool_calls: [{ index, ...header(c) }] })));
    for (let part = 0; part < 3; part++) {
      fragments.forEach((pieces, index) => chunks.push(chunk({ tool_calls: [{ index, function: { arguments: pieces[part] ?? '' } }] })));
    }
  }
  chunks.push(chunk({}, calls.length ? 'tool_calls' : 'stop'));
  if (options.includeUsage) chunks.push({ ...base, choices: [], usage: step.usage ?? defaultFakeUsage });
  return chunks;
}

/** The non-streaming completion of an answer. */
export function completion(step: AnswerStep, seq: number, model: string, includeUsage = true): unknown {
  const calls = wireCalls(step, seq);
  return {
    id: `chatcmpl-fake-${seq}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: step.content ?? null,
          ...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) } : {}),
        },
        finish_reason: calls.length ? 'tool_calls' : 'stop',
      },
    ],
    ...(includeUsage ? { usage: step.usage ?? defaultFakeUsage } : {}),
  };
}

/** An OpenAI error body; `extra` adds server-specific fields (llama-server's token counts). */
export function errorBody(message: string, type = 'invalid_request_error', code: string | number | null = null, extra: Record<string, unknown> = {}): unknown {
  return { error: { message, type, param: null, code, ...extra } };
}
