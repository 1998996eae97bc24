/**
 * The script language of the fake OpenAI server: what it answers to each request, in order.
 */
import type { FakeChatRequest } from './fake-openai-request';

/** Token usage the fake reports. */
export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Usage reported when a step names none. */
export const defaultFakeUsage: FakeUsage = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 };

/** A tool call the fake model makes. `arguments` as a string is sent verbatim (malformed JSON included). */
export interface FakeToolCall {
  id?: string;
  name: string;
  arguments: string | Record<string, unknown>;
}

/** One request as the fake received it. */
export interface RecordedRequest {
  /** 1-based position among all requests the fake received. */
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  /** The parsed body; undefined when it was not a valid chat request. */
  readonly body: FakeChatRequest | undefined;
}

/** What the fake answers to one request. */
export type FakeStep =
  | { kind: 'text'; content: string; usage?: FakeUsage }
  | { kind: 'tool_calls'; calls: FakeToolCall[]; content?: string; usage?: FakeUsage }
  | { kind: 'error'; status: number; message: string; code?: string; type?: string; headers?: Record<string, string> }
  /** Decides from the request (and may act, e.g. clear a worker cache, before answering). */
  | { kind: 'dynamic'; respond: (request: RecordedRequest) => FakeStep };

/** A final text answer. */
export function say(content: string, usage?: FakeUsage): FakeStep {
  return { kind: 'text', content, ...(usage ? { usage } : {}) };
}

/** One tool call (for `callTools`). */
export function toolCall(name: string, args: string | Record<string, unknown>, id?: string): FakeToolCall {
  return { name, arguments: args, ...(id ? { id } : {}) };
}

/** An answer with one or more (parallel) tool calls. Calls without an id get `call_<seq>_<index>`. */
export function callTools(...calls: FakeToolCall[]): FakeStep {
  return { kind: 'tool_calls', calls };
}

/** 429 with a retry-after header (seconds). */
export function rateLimited(retryAfterSeconds = 1): FakeStep {
  return { kind: 'error', status: 429, message: 'Rate limit reached (fake)', type: 'requests', code: 'rate_limit_exceeded', headers: { 'retry-after': String(retryAfterSeconds) } };
}

/** 500 from the provider. */
export function serverError(message = 'The server had an error while processing your request (fake)'): FakeStep {
  return { kind: 'error', status: 500, message, type: 'server_error' };
}

/** 400 invalid request. */
export function badRequest(message = "Invalid value for 'model' (fake)"): FakeStep {
  return { kind: 'error', status: 400, message, type: 'invalid_request_error', code: 'invalid_value' };
}

/** 400 context_length_exceeded, as OpenAI sends it. */
export function contextLengthExceeded(): FakeStep {
  return {
    kind: 'error',
    status: 400,
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. (fake)",
    type: 'invalid_request_error',
    code: 'context_length_exceeded',
  };
}

/** A step computed from the request. */
export function dynamic(respond: (request: RecordedRequest) => FakeStep): FakeStep {
  return { kind: 'dynamic', respond };
}
