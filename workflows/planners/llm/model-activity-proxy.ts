import { ActivityFailure, ApplicationFailure, TimeoutFailure, isCancellation, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import { describeIssues } from '../../../contracts/json';
import { turnActivityIdPrefix } from '../../../contracts/tools';
import { waitErrorText, type ProviderWaitOpening, type ProviderWaits } from '../../kernel/provider-waits';
import { defaultModelActivityOptions, type ModelActivityOptions } from './config';
import { isModelErrorType, limitedModelErrorTypes, modelErrorAdvice, nonRetryableModelErrorTypes, outageModelErrorTypes, type ModelErrorType } from './errors';
import { callModelActivityName, modelAnswerSchema, type ModelAnswer, type ModelCallInput } from '../../../contracts/model-call';

/**
 * Calls the model once; the planner's only I/O. Injected in unit tests. `waits`: the run's
 * provider waits (see PlannerContext.providerWaits); without them an outage fails the call.
 */
export type ModelCaller = (input: ModelCallInput, waits?: ProviderWaits) => Promise<ModelAnswer>;

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

type ModelActivity = (input: ModelCallInput) => Promise<unknown>;

function modelActivity(options: ActivityOptions): ModelActivity {
  const activity = proxyActivities<Record<string, ModelActivity>>(options)[callModelActivityName];
  if (!activity) throw new Error(`no activity proxy for ${callModelActivityName}`);
  return activity;
}

function isOneOf(types: readonly string[], type: string | null | undefined): boolean {
  return typeof type === 'string' && types.includes(type);
}

/** The outage type (`model_unavailable`, `model_rate_limited`) of a failed model activity, if it failed for one. */
function outageOf(err: unknown): ApplicationFailure | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  return cause instanceof ApplicationFailure && isOneOf(outageModelErrorTypes, cause.type) ? cause : undefined;
}

/** Whether a model activity of the waiting phase ran out of time: its schedule-to-close timeout is the time budget. */
function isOutOfTime(err: unknown): boolean {
  return err instanceof ActivityFailure && err.cause instanceof TimeoutFailure && err.cause.timeoutType === 'SCHEDULE_TO_CLOSE';
}

/** Whether a model activity of the waiting phase failed for a retryable error that is not an outage (not retried while waiting). */
function isLimitedFailure(err: unknown): boolean {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  return cause instanceof ApplicationFailure && isOneOf(limitedModelErrorTypes, cause.type);
}

/** Shortest schedule-to-close timeout a waiting call gets, however little of the time budget is left. */
const minWaitMs = 1_000;

/** Timeouts and summary of every activity of one model call. */
function commonOptions(o: Required<ModelActivityOptions>, input: ModelCallInput): ActivityOptions {
  return {
    startToCloseTimeout: o.startToCloseTimeoutMs,
    heartbeatTimeout: o.heartbeatTimeoutMs,
    summary: `turn ${input.turn}: ${input.model}${input.finalize ? ' (finalize)' : ''}`,
  };
}

/** The policy of a call's first activity: `maximumAttempts`, refusals not retried. */
function firstRetry(o: Required<ModelActivityOptions>): ActivityOptions['retry'] {
  return {
    maximumAttempts: o.maximumAttempts,
    initialInterval: o.initialIntervalMs,
    backoffCoefficient: o.backoffCoefficient,
    maximumInterval: o.maximumIntervalMs,
    nonRetryableErrorTypes: [...nonRetryableModelErrorTypes],
  };
}

/** The last outage error of a model call that waits, as its status and events report it. */
interface LastOutage {
  readonly errorType: string;
  readonly error: string;
}

/** The last outage of a model call, from its failure. */
function lastOutage(outage: ApplicationFailure): LastOutage {
  return { errorType: outage.type ?? 'model_unavailable', error: waitErrorText(outage.message) };
}

/** What a model call that waits shows in the run's status, and the `model_waiting` event it logs. */
function modelWait(o: Required<ModelActivityOptions>, input: ModelCallInput, last: LastOutage): Parameters<ProviderWaits['began']> {
  const wait = { attempts: o.maximumAttempts, ...last };
  return [{ kind: 'model', name: input.model, turn: input.turn, ...wait }, { type: 'model_waiting', turn: input.turn, model: input.model, ...wait }];
}

/**
 * The rest of a model call whose first activity failed for an outage (since
 * `wait-out-provider-outages`; `outage` is that failure), once its run opened the wait
 * (`opening`: `waiting`, or `spent` when its time budget was spent at once).
 *
 * The run reports the wait (`model_waiting`, the status's `waitingFor`) and schedules the call
 * again with a policy without an attempt limit, whose retries happen on the server: an outage
 * costs one failed activity and one workflow task in history, however long it lasts. That
 * activity's schedule-to-close timeout is what is left of the time budget (the budget's watch
 * cancels tool turns, not planner turns), so the run gives up when its budget is spent; a budget
 * raised meanwhile is used by scheduling it again. A broken answer while waiting goes back to the
 * first policy. Refusals (bad request, credentials, unknown model) fail at once in either phase.
 */
async function waitOutOutage(o: Required<ModelActivityOptions>, input: ModelCallInput, id: string, waits: ProviderWaits, outage: ApplicationFailure, opening: Exclude<ProviderWaitOpening, 'refused'>): Promise<unknown> {
  const common = commonOptions(o, input);
  // No maximumAttempts: without a limit.
  const waitRetry = {
    initialInterval: o.initialIntervalMs,
    backoffCoefficient: o.backoffCoefficient,
    maximumInterval: o.outageMaximumIntervalMs,
    nonRetryableErrorTypes: [...nonRetryableModelErrorTypes, ...limitedModelErrorTypes],
  };
  let last = lastOutage(outage);
  const giveUp = (): ApplicationFailure => {
    waits.ended();
    return modelRunFailure(last.errorType as ModelErrorType, input.model, `the provider was unavailable until the run's time budget was spent; the last error: ${last.error}`);
  };
  if (opening === 'spent') throw giveUp();
  let waiting = true;
  for (let n = 1; ; n++) {
    // Each activity of the call has an id of its own: `turn-<N>/model-<k>/wait-<n>` (or `again-<n>`).
    const activity = modelActivity({
      ...common,
      activityId: `${id}/${waiting ? 'wait' : 'again'}-${n}`,
      ...(waiting ? { scheduleToCloseTimeout: Math.max(waits.timeBudgetLeftMs(), minWaitMs), retry: waitRetry } : { retry: firstRetry(o) }),
    });
    try {
      const raw = await activity(input);
      if (waiting) waits.ended({ type: 'note', turn: input.turn, note: { text: `the model provider of ${input.model} answered again`, labels: { planner: 'llm', kind: 'model_available' } } });
      return raw;
    } catch (err) {
      if (isCancellation(err)) {
        if (waiting) waits.ended();
        throw err;
      }
      const again = outageOf(err);
      if (again) last = lastOutage(again);
      // Waiting: its schedule-to-close timeout (the budget) passed; budget left means it was raised
      // meanwhile. Not waiting: the first policy's attempts failed for an outage again.
      if (waiting ? isOutOfTime(err) : again) {
        if (waits.timeBudgetLeftMs() <= 0) throw giveUp();
        if (!waiting) waits.began(...modelWait(o, input, last));
        waiting = true;
        continue;
      }
      // While waiting, an outage comes back only when the server would retry past the budget
      // (a Retry-After longer than what is left): give up rather than schedule again at once.
      if (waiting && again) throw giveUp();
      if (waiting) waits.ended();
      // The provider answered, badly: such answers get `maximumAttempts` as before the outage.
      if (waiting && isLimitedFailure(err)) {
        waiting = false;
        continue;
      }
      throw toRunFailure(err, input.model);
    }
  }
}

/**
 * The model caller used in workflows: the `callModel` activity with timeouts, heartbeats and
 * a retry policy (outages and rate limits are waited out, see {@link ModelActivityOptions};
 * other errors fail after `maximumAttempts` or at once). Its answer is parsed, and its failures
 * become run failures (see {@link toRunFailure}).
 */
export function modelActivityCaller(options: ModelActivityOptions = {}): ModelCaller {
  const o = { ...defaultModelActivityOptions, ...options };
  let calls = 0;
  return async (input, waits) => {
    calls += 1;
    // A tenant whose token or money quota is spent holds its model calls (before the call, so none is spent).
    const held = waits?.beforeModelCall?.(input.turn);
    if (held) await held;
    // The turn in the id marks the turn's boundary in history (see turn-boundaries.ts).
    const id = `${turnActivityIdPrefix(input.turn)}model-${calls}`;
    const activity = modelActivity({ activityId: id, ...commonOptions(o, input), retry: firstRetry(o) });
    let raw: unknown;
    try {
      raw = await activity(input);
    } catch (err) {
      const outage = outageOf(err);
      if (!outage || !waits) throw toRunFailure(err, input.model);
      // Runs recorded before 1.0.0 failed here (`refused`).
      const opening = waits.open(...modelWait(o, input, lastOutage(outage)));
      if (opening === 'refused') throw toRunFailure(err, input.model);
      raw = await waitOutOutage(o, input, id, waits, outage, opening);
    }
    const parsed = modelAnswerSchema().safeParse(raw);
    if (!parsed.success) throw modelRunFailure('model_activity_failed', input.model, `the activity returned an invalid answer: ${describeIssues(parsed.error)}`);
    return parsed.data;
  };
}
