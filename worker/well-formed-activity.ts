import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next } from '@temporalio/worker';
import { isWellFormedText, wellFormed, wellFormedValue } from '../contracts/safe-text';

/** How deep a chain of `cause`s is followed; deeper causes are dropped. */
const maxCauseDepth = 8;

const text = (value: string | undefined): string | undefined => (value === undefined || isWellFormedText(value) ? value : wellFormed(value));

/**
 * `err` with every string the SDK encodes as a protobuf string made well-formed: message, name
 * (a plain error's type), stack, an ApplicationFailure's type and details, and its causes.
 * Returns `err` itself when nothing needed a change, so ordinary failures keep their identity.
 */
export function wellFormedError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error)) return typeof err === 'string' ? text(err) : err;
  const cause = depth < maxCauseDepth ? wellFormedError(err.cause, depth + 1) : undefined;
  const isClean =
    isWellFormedText(err.message) &&
    isWellFormedText(err.name) &&
    isWellFormedText(err.stack ?? '') &&
    cause === err.cause &&
    (!(err instanceof ApplicationFailure) || (isWellFormedText(err.type ?? '') && wellFormedValue(err.details) === err.details));
  if (isClean) return err;
  let clean: Error;
  if (err instanceof ApplicationFailure) {
    clean = ApplicationFailure.create({
      message: text(err.message),
      type: text(err.type ?? undefined),
      nonRetryable: err.nonRetryable ?? false,
      details: wellFormedValue(err.details ?? undefined),
      ...(err.nextRetryDelay != null ? { nextRetryDelay: err.nextRetryDelay } : {}),
      ...(err.category != null ? { category: err.category } : {}),
      ...(cause instanceof Error ? { cause } : {}),
    });
  } else if (err instanceof CancelledFailure) {
    clean = new CancelledFailure(text(err.message), wellFormedValue(err.details), cause instanceof Error ? cause : undefined);
  } else {
    clean = new Error(text(err.message), cause instanceof Error ? { cause } : undefined);
    clean.name = text(err.name) ?? 'Error';
  }
  clean.stack = text(err.stack);
  return clean;
}

/**
 * Makes every string that leaves an activity well-formed Unicode: its failure (which travels as
 * protobuf strings, where a lone UTF-16 surrogate cannot be encoded and the SDK's core stops the
 * worker) and its result (which the run records, shows and passes to the model). Lone
 * surrogates become U+FFFD. Registered outermost by `DurableAgentsPlugin`, so it sees what
 * every other interceptor passes on.
 */
class WellFormedActivityInbound implements ActivityInboundCallsInterceptor {
  async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    let result: unknown;
    try {
      result = await next(input);
    } catch (err) {
      throw wellFormedError(err);
    }
    return wellFormedValue(result);
  }
}

/** The activity interceptor of {@link WellFormedActivityInbound}. */
export const wellFormedActivityInterceptors: ActivityInterceptorsFactory = () => ({ inbound: new WellFormedActivityInbound() });
