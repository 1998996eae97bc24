import { ApplicationFailure } from '@temporalio/workflow';
import { failureMessage } from '../../contracts/safe-text';

/**
 * A non-retryable failure whose message is safe to send whatever it echoes: well-formed (a lone
 * surrogate would make it unencodable and shut the worker down) and bounded in length.
 */
export function rejection(message: string, type: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(failureMessage(message), type);
}
