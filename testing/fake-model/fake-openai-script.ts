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

/** A complete answer: final text, or tool calls. */
export type FakeAnswer = { kind: 'text'; content: string; usage?: FakeUsage } | { kind: 'tool_calls'; calls: FakeToolCall[]; content?: string; usage?: FakeUsage };

/** What the fake answers to one request. */
export type FakeStep =
  | FakeAnswer
  | { kind: 'error'; status: number; message: string; code?: string | number; type?: string; headers?: Record<string, string>; extra?: Record<string, unknown> }
  /** HTTP 200 and the first `afterChunks` SSE chunks of `answer`, then the stream ends: no finish reason, no `[DONE]`. */
  | { kind: 'cut'; answer: FakeAnswer; afterChunks: number }
  /** HTTP 200 with an empty body (llama-server's answer to a streamed request that overflows its context). */
  | { kind: 'empty' }
  /** HTTP 200 and the first `afterChunks` SSE chunks of `answer`, then silence until the client goes away; `onStalled` runs then. */
  | { kind: 'stall'; answer: FakeAnswer; afterChunks: number; onStalled?: () => void }
  /**
   * Streams `answer` as a model does: its tool calls one after another, `callDelayMs` apart
   * (the first one at once), so a client can act on a call before the answer ends.
   */
  | { kind: 'paced'; answer: FakeAnswer; callDelayMs: number }
  /**
   * Sends nothing (not even headers) until `release` settles, then `answer`: a model still
   * thinking, for as long as the test says. `onHeld` runs when the request arrives. A client that
   * goes away meanwhile (a cancelled call) gets nothing, and the step counts as used.
   */
  | { kind: 'held'; answer: FakeAnswer; release: Promise<unknown>; onHeld?: () => void }
  /** Decides from the request (and may act, e.g. clear a worker cache, before answering). */
  | { kind: 'dynamic'; respond: (request: RecordedRequest) => FakeStep };

/** A final text answer. */
export function say(content: string, usage?: FakeUsage): FakeAnswer {
  return { kind: 'text', content, ...(usage ? { usage } : {}) };
}

/** One tool call (for `callTools`). */
export function toolCall(name: string, args: string | Record<string, unknown>, id?: string): FakeToolCall {
  return { name, arguments: args, ...(id ? { id } : {}) };
}

/** An answer with one or more (parallel) tool calls. Calls without an id get `call_<seq>_<index>`. */
export function callTools(...calls: FakeToolCall[]): FakeAnswer {
  return { kind: 'tool_calls', calls };
}

/** Streams an answer's tool calls one after another, `callDelayMs` apart (see FakeStep `paced`). */
export function paced(answer: FakeAnswer, callDelayMs: number): FakeStep {
  return { kind: 'paced', answer, callDelayMs };
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

/** llama-server's context overflow: 400, type `exceed_context_size_error`, with the token counts. */
export function llamaContextOverflow(): FakeStep {
  return {
    kind: 'error',
    status: 400,
    code: 400,
    message: 'the request exceeds the available context size, try increasing it',
    type: 'exceed_context_size_error',
    extra: { n_prompt_tokens: 9000, n_ctx: 8192 },
  };
}

/**
 * A request-validation error sent as HTTP 500, as llama-server does for parameters it parses
 * but refuses (its C++ runtime errors become `server_error` 500s).
 */
export function validationError500(message = 'response_format type must be one of "text" or "json_object", but got: json_schema'): Extract<FakeStep, { kind: 'error' }> {
  return { kind: 'error', status: 500, code: 500, message, type: 'server_error' };
}

/** The stream ends after `afterChunks` chunks of `answer`, without a finish reason. */
export function cutOff(answer: FakeAnswer, afterChunks: number): FakeStep {
  return { kind: 'cut', answer, afterChunks };
}

/** HTTP 200 with an empty body. */
export function emptyBody(): FakeStep {
  return { kind: 'empty' };
}

/** Streams `afterChunks` chunks of `answer`, then holds the connection open; `onStalled` runs after the last chunk is written. */
export function stall(answer: FakeAnswer, afterChunks: number, onStalled?: () => void): FakeStep {
  return { kind: 'stall', answer, afterChunks, ...(onStalled ? { onStalled } : {}) };
}

/**
 * Holds the answer until `release` settles (see FakeStep `held`); `onHeld` runs when the request
 * arrives, so a test can act while the model call is in flight.
 *
 * @example
 * import { FakeOpenAIServer, held, say } from 'durable-agents/testing';
 * const fake = await FakeOpenAIServer.start();
 * let release = (): void => undefined;
 * const released = new Promise<void>((resolve) => (release = resolve));
 * fake.script(held(say('done'), released, () => console.log('the model call is in flight')));
 * // … act while the call waits, then let the answer go:
 * release();
 */
export function held(answer: FakeAnswer, release: Promise<unknown>, onHeld?: () => void): FakeStep {
  return { kind: 'held', answer, release, ...(onHeld ? { onHeld } : {}) };
}

/**
 * Behaviours of particular OpenAI-compatible servers, for every request until `reset()`:
 * - `rejectNullContent`: 400 for an assistant message with `content: null`;
 * - `omitUsage`: no usage chunk (streaming) and no `usage` (non-streaming), even when asked;
 * - `omitToolCallIndex`: tool-call deltas without `index` (calls one after another);
 * - `rejectJsonSchema`: a `json_schema` response_format is refused with llama-server's 500;
 * - `rejectStreamingTools`: a streamed request with tools is refused with a 500 ("Cannot use tools with stream").
 */
export interface FakeQuirks {
  rejectNullContent?: boolean;
  omitUsage?: boolean;
  omitToolCallIndex?: boolean;
  rejectJsonSchema?: boolean;
  rejectStreamingTools?: boolean;
}

/** A step computed from the request. */
export function dynamic(respond: (request: RecordedRequest) => FakeStep): FakeStep {
  return { kind: 'dynamic', respond };
}
