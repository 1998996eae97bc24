import { ActivityFailure, ApplicationFailure, TimeoutFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import { describeIssues } from '../../../contracts/json';
import { defaultModelActivityOptions, type ModelActivityOptions } from './config';
import { isModelErrorType, modelErrorAdvice, nonRetryableModelErrorTypes, type ModelErrorType } from './errors';
import { callModelActivityName, modelAnswerSchema, type ModelAnswer, type ModelCallInput } from './model-call';
import { turnActivityIdPrefix } from '../../../contracts/tools';
import { isPatched, turnBoundariesInCommands } from '../../patches';

/** Calls the model once; the planner's only I/O. Injected in unit tests. */
export type ModelCaller = (input: ModelCallInput) => Promise<ModelAnswer>;

/** A run failure with a model error type, naming the model and what to do. */
export function modelRunFailure(type: ModelErrorType, model: string, detail: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`model call to ${model} failed (${type}): ${detail}. What to do: ${modelErrorAdvice[type]}.`, type);
}

/**
 * Turns a failed model activity into the run's failure: an ApplicationFailure whose type is
 * one of the model error types. Cancellation passes through unchanged (the run loop handles it).
 */
export function toRunFailure(err: unknown, model: string): unknown {
  if (isCancellation(err) || !(err instanceof ActivityFailure)) return err;
  const cause = err.cause;
  if (cause instanceof TimeoutFailure) return modelRunFailure('model_timeout', model, `${cause.timeoutType} timeout`);
  const retried = err.retryState === 'MAXIMUM_ATTEMPTS_REACHED' ? ' (gave up after the last retry)' : '';
  if (cause instanceof ApplicationFailure && isModelErrorType(cause.type)) return modelRunFailure(cause.type, model, `${cause.message}${retried}`);
  const message = cause instanceof Error ? cause.message : String(cause ?? err.message);
  return modelRunFailure('model_activity_failed', model, `${message}${retried}`);
}

/**
 * The model caller used in workflows: the `callModel` activity with timeouts, heartbeats and
 * a retry policy (rate limits and provider outages retry with backoff; other errors do not).
 * Its answer is parsed, and its failures become run failures (see {@link toRunFailure}).
 */
export function modelActivityCaller(options: ModelActivityOptions = {}): ModelCaller {
  const o = { ...defaultModelActivityOptions, ...options };
  let calls = 0;
  return async (input) => {
    calls += 1;
    const activities = proxyActivities<Record<string, (input: ModelCallInput) => Promise<unknown>>>({
      // The turn in the id marks the turn's boundary in history (see turn-boundaries.ts).
      ...(isPatched(turnBoundariesInCommands) ? { activityId: `${turnActivityIdPrefix(input.turn)}model-${calls}` } : {}),
      startToCloseTimeout: o.startToCloseTimeoutMs,
      heartbeatTimeout: o.heartbeatTimeoutMs,
      summary: `turn ${input.turn}: ${input.model}${input.finalize ? ' (finalize)' : ''}`,
      retry: {
        maximumAttempts: o.maximumAttempts,
        initialInterval: o.initialIntervalMs,
        backoffCoefficient: o.backoffCoefficient,
        maximumInterval: o.maximumIntervalMs,
        nonRetryableErrorTypes: [...nonRetryableModelErrorTypes],
      },
    });
    const activity = activities[callModelActivityName];
    if (!activity) throw new Error(`no activity proxy for ${callModelActivityName}`);
    let raw: unknown;
    try {
      raw = await activity(input);
    } catch (err) {
      throw toRunFailure(err, input.model);
    }
    const parsed = modelAnswerSchema().safeParse(raw);
    if (!parsed.success) throw modelRunFailure('model_activity_failed', input.model, `the activity returned an invalid answer: ${describeIssues(parsed.error)}`);
    return parsed.data;
  };
}
