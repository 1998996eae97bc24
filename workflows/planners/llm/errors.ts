import { z } from 'zod';
import { builtOnce } from '../../../contracts/lazy';

/**
 * Closed set of error types of model calls. The activity throws them as ApplicationFailure
 * types; the planner fails the run with the same type, so callers match on one set.
 *
 * Retryable (the activity's retry policy retries them with backoff):
 * - `model_rate_limited`: the provider answered 429. Wait, or raise the provider quota.
 * - `model_unavailable`: 5xx, 408/409, connection errors. The provider is down or overloaded.
 *   These two are outages ({@link outageModelErrorTypes}): a run waits them out until its time
 *   budget is spent, reporting the wait (`model_waiting`, the status's `waitingFor`).
 * - `model_invalid_response`: the stream broke or made no sense. Provider-side; usually transient.
 * - `model_response_incomplete`: the answer ended without a finish reason: a stream cut off or
 *   closed early, or an HTTP 200 with an empty body (llama-server's answer to a context
 *   overflow in a stream). The partial answer is discarded, never used; retried like the others,
 *   so at most `maximumAttempts` times.
 * - `model_transcript_unavailable`: the worker could not read the run's transcript (query failed).
 *
 * Non-retryable (the run fails with this type):
 * - `model_bad_request`: the provider refused the request (4xx, or a 5xx that reports a request
 *   validation error such as an unsupported parameter). Check model name and parameters.
 * - `model_auth`: 401/403. Check OPENAI_API_KEY on the workers.
 * - `model_not_found`: 404. The model (or endpoint path) does not exist at OPENAI_BASE_URL.
 * - `model_context_length`: the conversation is longer than the model's context window.
 * - `model_config`: the worker cannot serve the call (no endpoint configured, agent or tool unknown to the worker).
 * - `model_transcript_mismatch`: the worker's copy of the transcript disagrees with the run's digest (a bug).
 * - `invalid_input`: the activity input did not parse (workflow/worker version skew or a bug).
 * - `model_timeout`: the model call did not finish within its timeouts, retries included.
 * - `model_invalid_output`: the model kept answering with output that fails validation after the repair turns.
 * - `model_activity_failed`: the model activity failed in an unexpected way (worker bug); see the cause.
 */
export const modelErrorTypeSchema = builtOnce(() =>
  z.enum([
    'model_rate_limited',
    'model_unavailable',
    'model_invalid_response',
    'model_response_incomplete',
    'model_transcript_unavailable',
    'model_bad_request',
    'model_auth',
    'model_not_found',
    'model_context_length',
    'model_config',
    'model_transcript_mismatch',
    'invalid_input',
    'model_timeout',
    'model_invalid_output',
    'model_activity_failed',
  ]),
);
export type ModelErrorType = z.infer<ReturnType<typeof modelErrorTypeSchema>>;

/** Types the activity raises that retrying cannot fix: listed in the activity's retry policy. */
export const nonRetryableModelErrorTypes: readonly ModelErrorType[] = [
  'model_bad_request',
  'model_auth',
  'model_not_found',
  'model_context_length',
  'model_config',
  'model_transcript_mismatch',
  'invalid_input',
];

/**
 * Retryable types that mean the provider is down or busy (an outage, 5xx, rate limits). Since
 * 1.0.0 a run waits them out: it reports that it waits for its provider and retries without an
 * attempt limit until the provider answers or the run's time budget is spent.
 */
export const outageModelErrorTypes: readonly ModelErrorType[] = ['model_unavailable', 'model_rate_limited'];

/** Retryable types that are not outages (broken or incomplete answers): retried a few times, then the run fails. */
export const limitedModelErrorTypes: readonly ModelErrorType[] = ['model_invalid_response', 'model_response_incomplete', 'model_transcript_unavailable'];

/** What to do about each error type, appended to the run failure message. */
export const modelErrorAdvice: Readonly<Record<ModelErrorType, string>> = {
  model_rate_limited: 'the provider kept rate-limiting this worker; wait, lower concurrency or raise the quota (or the run\'s time budget, which bounds the wait)',
  model_unavailable: 'the model endpoint kept failing; check the provider status and OPENAI_BASE_URL (the run\'s time budget bounds how long it waits)',
  model_invalid_response: 'the provider kept sending malformed streams; check the endpoint is OpenAI-compatible',
  model_response_incomplete:
    'the provider kept ending answers without a finish reason; check the server logs (llama-server answers a context overflow with an empty stream) and its context size',
  model_transcript_unavailable: 'the worker could not query the run transcript; check the worker can reach Temporal',
  model_bad_request: 'the provider rejected the request; check the model name and the agent definition',
  model_auth: 'the provider refused the credentials; check OPENAI_API_KEY on the workers',
  model_not_found: 'the model or endpoint does not exist; check the agent model and OPENAI_BASE_URL',
  model_context_length: 'the conversation exceeds the model context window; shorten the input or use a larger model',
  model_config: 'the worker cannot serve this call; deploy workers with the same agent definitions and an endpoint configured',
  model_transcript_mismatch: 'the worker transcript disagrees with the run (a bug); report it with the workflow id',
  invalid_input: 'the model activity input did not parse; workflow bundle and worker code are out of step',
  model_timeout: 'the model call timed out; raise the planner timeouts or use a faster model',
  model_invalid_output: 'the model kept producing invalid output; loosen the output schema or use a stronger model',
  model_activity_failed: 'the model activity failed unexpectedly (a worker bug); see the cause',
};

/** True for a string in {@link modelErrorTypeSchema}. */
export function isModelErrorType(value: unknown): value is ModelErrorType {
  return modelErrorTypeSchema().safeParse(value).success;
}
