import { ApplicationFailure } from '@temporalio/activity';
import type { APIError } from 'openai';
import type { ModelErrorType } from '../../workflows/planners/llm';

/**
 * openai's error classes, loaded at the first provider error: the model activity's own client (the
 * worker's `openai` option) has loaded the package by then, and a worker that runs no LLM agent
 * never loads it (about 150 modules).
 */
function openaiErrors(): Pick<typeof import('openai'), 'APIConnectionError' | 'APIError' | 'APIUserAbortError'> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('openai') as typeof import('openai');
}

/** Longest provider-requested retry delay we honour; longer waits fall back to the retry policy. */
const maxRetryAfterMs = 5 * 60_000;

/**
 * Delay the provider asked for, from `retry-after-ms` or `retry-after` (seconds or an HTTP
 * date), or undefined when absent or unreasonable.
 */
export function retryAfterMs(headers: Pick<Headers, 'get'> | undefined, nowMs: number = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, maxRetryAfterMs);
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  const delay = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - nowMs;
  return Number.isFinite(delay) && delay >= 0 && delay <= maxRetryAfterMs ? delay : undefined;
}

/** OpenAI's `context_length_exceeded`, llama-server's `exceed_context_size_error`, and the wordings of other servers. */
function isContextLength(err: APIError): boolean {
  return (
    err.code === 'context_length_exceeded' ||
    err.type === 'exceed_context_size_error' ||
    /context[ _]length|maximum context|context window|too many tokens|exceeds the available context size/i.test(err.message)
  );
}

/**
 * A 5xx that reports a refused request rather than an outage. Some servers answer request
 * validation errors with 500 (llama-server turns its parameter errors into `server_error` 500s,
 * e.g. an unsupported `response_format` or "Cannot use tools with stream"); retrying those five
 * times and blaming the provider status helps nobody. 501 means "not implemented" by definition.
 */
function isValidationError(err: APIError): boolean {
  if (err.status === 501) return true;
  if (err.type === 'invalid_request_error' || err.type === 'not_supported_error') return true;
  return /\b(must be|unsupported|not supported|invalid (value|param|parameter|argument|request|type)|unknown (param|parameter|field|argument)|cannot use|response_format|json_schema)\b/i.test(err.message);
}

/** True when the server refused a `json_schema` response_format (so the worker can fall back to prompting). */
export function isJsonSchemaRefusal(err: unknown): boolean {
  const { APIError } = openaiErrors();
  return err instanceof APIError && typeof err.status === 'number' && err.status >= 400 && err.status !== 429 && /response_format|json_schema|structured output/i.test(err.message);
}

function failure(type: ModelErrorType, message: string, retryable: boolean, nextRetryDelayMs?: number): ApplicationFailure {
  return ApplicationFailure.create({ message, type, nonRetryable: !retryable, ...(nextRetryDelayMs !== undefined ? { nextRetryDelay: nextRetryDelayMs } : {}) });
}

/**
 * Classifies a provider error into a model error type. Rate limits and outages are retryable
 * (the activity retry policy backs off; a 429's retry-after sets the next delay); requests
 * the provider refuses are not, whatever status they came with: a context overflow is
 * `model_context_length` and a 5xx that reports a validation error is `model_bad_request`.
 * Cancellation and ApplicationFailures pass through unchanged.
 */
export function providerFailure(err: unknown, model: string): unknown {
  const { APIConnectionError, APIError, APIUserAbortError } = openaiErrors();
  if (err instanceof ApplicationFailure || err instanceof APIUserAbortError) return err;
  if (err instanceof APIConnectionError) return failure('model_unavailable', `could not reach the model endpoint for ${model}: ${err.message}`, true);
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    const said = `the provider answered ${status} for ${model}: ${err.message}${err.requestID ? ` (request ${err.requestID})` : ''}`;
    if (status === 429) return failure('model_rate_limited', said, true, retryAfterMs(err.headers));
    if (status !== 401 && status !== 403 && status !== 404 && isContextLength(err)) return failure('model_context_length', said, false);
    if (status >= 500 && isValidationError(err)) return failure('model_bad_request', said, false);
    if (status === 408 || status === 409 || status >= 500) return failure('model_unavailable', said, true, retryAfterMs(err.headers));
    if (status === 401 || status === 403) return failure('model_auth', said, false);
    if (status === 404) return failure('model_not_found', said, false);
    return failure('model_bad_request', said, false);
  }
  const message = err instanceof Error ? err.message : String(err);
  return failure('model_invalid_response', `the model stream for ${model} failed: ${message}`, true);
}
