import { QueryNotRegisteredError, ServiceError, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { AgentClientErrorType } from './errors';
import { isServerUnavailable } from './unavailable';

/** gRPC status DEADLINE_EXCEEDED: a query no worker answered before its deadline. */
export const grpcDeadlineExceeded = 4;

/**
 * Failure type of an update whose execution closed before the update completed: a reset (rewind)
 * or continue-as-new replaced the execution, or the run ended.
 */
const acceptedUpdateCompletedWorkflow = 'AcceptedUpdateCompletedWorkflow';

/** What went wrong with a call of the Temporal client, as the client's error table names it. */
export type ClientErrorKind =
  | 'not_found'
  | 'no_query_handler'
  | 'query_deadline'
  | 'update_outlived_execution'
  | 'update_run_ended'
  | 'update_rejected'
  | 'already_started'
  | 'unavailable'
  | 'completed_by_message';

/** One row of the error table: how to recognise a kind of error, and what the client makes of it. */
export interface ClientErrorRow {
  readonly kind: ClientErrorKind;
  /** Whether `err` is of this kind: by the SDK's error class, the failure's type or the gRPC code. */
  readonly matches: (err: unknown) => boolean;
  /**
   * What the client throws for it: an AgentClientError of this type, or `as_is` (the caller
   * handles it, or it already says what it is: a start under a running run's id, an unreachable
   * server). `not_found` needs a look at the run to tell its type (see RunCalls.guard).
   */
  readonly becomes: AgentClientErrorType | 'as_is';
  /** The row recognises the error by its message text: only rows of this sort come last. */
  readonly byMessage?: true;
}

/** The gRPC status code of a ServiceError (on its cause, where the SDK puts it). */
export function grpcCode(err: unknown): unknown {
  return err instanceof ServiceError ? (err.cause as { code?: unknown } | undefined)?.code : undefined;
}

/** The failure type of a refused update (the run's reason: `stale_digest`, `invalid_decision`, …). */
export function updateFailureType(err: unknown): string | undefined {
  return err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure ? err.cause.type ?? undefined : undefined;
}

/**
 * The client's errors, first match wins: rows that read the SDK's classes, failure types and
 * gRPC codes, then, as a last fallback, those that read a message.
 */
export const clientErrorTable: readonly ClientErrorRow[] = [
  // The run, or its execution by run id, does not exist; updates to a closed run also come back so.
  { kind: 'not_found', matches: (err) => err instanceof WorkflowNotFoundError, becomes: 'run_not_found' },
  // The run ended before it registered its queries.
  { kind: 'no_query_handler', matches: (err) => err instanceof QueryNotRegisteredError, becomes: 'unanswered' },
  { kind: 'query_deadline', matches: (err) => grpcCode(err) === grpcDeadlineExceeded, becomes: 'unanswered' },
  { kind: 'update_outlived_execution', matches: (err) => updateFailureType(err) === acceptedUpdateCompletedWorkflow, becomes: 'run_ended' },
  { kind: 'update_run_ended', matches: (err) => updateFailureType(err) === 'run_ended', becomes: 'run_ended' },
  // The run's validator or handler refused the update, and said why.
  { kind: 'update_rejected', matches: (err) => err instanceof WorkflowUpdateFailedError, becomes: 'rejected' },
  { kind: 'already_started', matches: (err) => err instanceof WorkflowExecutionAlreadyStartedError, becomes: 'as_is' },
  { kind: 'unavailable', matches: isServerUnavailable, becomes: 'as_is' },
  { kind: 'completed_by_message', matches: (err) => err instanceof Error && /workflow execution already completed/i.test(err.message), becomes: 'run_ended', byMessage: true },
];

/**
 * Whether `err` is the server's refusal of an update no worker processed (it reached a workflow
 * task whose completion did not take it; it never entered history, so it may be sent again). The
 * refusal carries no failure type: its text is all there is, so this reads the message.
 */
export function isUnprocessedUpdate(err: unknown): boolean {
  return err instanceof WorkflowUpdateFailedError && /wasn't processed by worker/i.test(err.cause?.message ?? '');
}

/** The row of the error table `err` matches, or undefined for an error the client passes on as it came. */
export function clientErrorRow(err: unknown): ClientErrorRow | undefined {
  return clientErrorTable.find((row) => row.matches(err));
}

/** The kind of `err` by the error table (undefined: not an error the table knows). */
export function clientErrorKind(err: unknown): ClientErrorKind | undefined {
  return clientErrorRow(err)?.kind;
}

/**
 * What the error says for a kind that needs nothing more than the error and the run's id
 * (`not_found` and `query_deadline` are told by RunCalls.guard, which looks at the run).
 */
export function clientErrorMessage(kind: ClientErrorKind, err: unknown, workflowId: string): string {
  switch (kind) {
    case 'no_query_handler':
      // The SDK's text ("did not register a handler for …") names no reason; the history does.
      return `run ${workflowId} cannot answer queries (it ended before it registered them)`;
    case 'update_outlived_execution':
      return `the execution of run ${workflowId} that took the request closed before answering it (the run was rewound, continued as new or ended); see its status and try again`;
    case 'update_run_ended':
    case 'update_rejected':
      return (err instanceof WorkflowUpdateFailedError ? err.cause?.message : undefined) ?? (err instanceof Error ? err.message : String(err));
    case 'completed_by_message':
      return `run ${workflowId} has ended`;
    default:
      return err instanceof Error ? err.message : String(err);
  }
}
