import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { AgentClientError } from '../client/agent-client';
import { CheckpointError } from '../history/checkpoints';
import { SessionScheduleError } from '../client/session-schedules';

/** Process exit codes of `agentctl`; scripts can branch on them. */
export const ExitCode = {
  ok: 0,
  /** Anything not covered below (connection failures, a failed run's result, …). */
  failure: 1,
  /** Bad flag, bad JSON, unknown command, invalid value. */
  usage: 2,
  runNotFound: 3,
  runEnded: 4,
  /** The run refused the operation (update validator or handler said why). */
  rejected: 5,
  /** `replay`: the history does not replay against the current workflow code. */
  nondeterministic: 6,
  /** `replay`: the history was recorded by a release before the support window; finish it on an older worker. */
  outsideSupportWindow: 7,
  /** `eval`: a run failed one of the `--gate` checks (the report says which and why). */
  evalGateFailed: 8,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A mistake on the command line; exits with {@link ExitCode.usage}. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The exit code for an error thrown by a command. */
export function exitCodeFor(err: unknown): ExitCode {
  if (err instanceof UsageError) return ExitCode.usage;
  if (err instanceof AgentClientError) {
    switch (err.type) {
      case 'invalid_input':
        return ExitCode.usage;
      case 'run_not_found':
        return ExitCode.runNotFound;
      case 'run_ended':
        return ExitCode.runEnded;
      case 'rejected':
        return ExitCode.rejected;
    }
  }
  // No schedule of that name is "not found" (3); another spec under its name is refused (5).
  if (err instanceof SessionScheduleError) return err.type === 'schedule_not_found' ? ExitCode.runNotFound : ExitCode.rejected;
  if (err instanceof CheckpointError) {
    // A turn the run does not have, or a correction it refuses: valid requests it cannot honour.
    return err.type === 'invalid_input' ? ExitCode.usage : ExitCode.rejected;
  }
  if (err instanceof WorkflowNotFoundError) return ExitCode.runNotFound;
  return ExitCode.failure;
}

/** One line describing an error, for `agentctl: <message>` on stderr. */
export function errorMessage(err: unknown): string {
  let message: string;
  if (err instanceof WorkflowFailedError) {
    message = `run failed: ${err.cause?.message ?? err.message}`;
  } else if (err instanceof WorkflowExecutionAlreadyStartedError) {
    message = `a run with id ${err.workflowId} is already running`;
  } else if (err instanceof Error) {
    const cause = err.cause instanceof Error && err.cause.message && err.cause.message !== err.message ? `: ${err.cause.message}` : '';
    message = `${err.message}${cause}`;
  } else {
    message = String(err);
  }
  return message.replace(/\s*\n\s*/g, ' ').trim();
}
