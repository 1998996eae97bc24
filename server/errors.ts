import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { AgentClientError } from '../client/agent-client';
import { CheckpointError } from '../history/checkpoints';
import { RunIdTakenError } from '../history/id-reuse';
import { isServerUnavailable } from '../client/unavailable';
import { SessionScheduleError } from '../client/session-schedules';
import { maxEchoChars, quoted, wellFormed } from '../contracts/safe-text';

/**
 * Error types of the HTTP API: a closed set, the same as agentctl's exit codes plus the HTTP
 * ones (auth, unknown route). Clients match on `type`, never on the message.
 */
export const apiErrorStatus = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  run_not_found: 404,
  not_found: 404,
  run_ended: 409,
  /** The run ended without a result (failed, terminated by Temporal, timed out); the message says how and why. */
  run_failed: 409,
  already_started: 409,
  /** A start under the workflow id of a closed run; the message names it and how to read it. */
  already_exists: 409,
  /** A session message refused under `whenBusy: reject` while a run of the session is active; the message names that run. */
  session_busy: 409,
  /** The request body is larger than the server takes. */
  too_large: 413,
  /** A write whose body is not declared as JSON (`Content-Type: application/json`). */
  unsupported_media_type: 415,
  /** The run refused the operation; its validator or handler said why (agentctl exit 5). */
  rejected: 422,
  not_configured: 501,
  /** No worker answered a query in time, or the Temporal server is unreachable. */
  unavailable: 503,
  failure: 500,
} as const;
export type ApiErrorType = keyof typeof apiErrorStatus;

/** The JSON body of every error response: `{ "error": { "type": ..., "message": ... } }`. */
export interface ApiErrorBody {
  readonly error: { readonly type: ApiErrorType; readonly message: string };
}

/** Longest error message the API answers; longer ones are cut with a note. */
const maxMessageChars = 1000;

/** An error the API answers with its status and a message naming what was wrong (well-formed, bounded). */
export class ApiError extends Error {
  constructor(
    readonly type: ApiErrorType,
    message: string,
  ) {
    super(wellFormed(message.length > maxMessageChars ? `${message.slice(0, maxMessageChars)}… (${message.length - maxMessageChars} more characters)` : message));
    this.name = 'ApiError';
  }

  get status(): (typeof apiErrorStatus)[ApiErrorType] {
    return apiErrorStatus[this.type];
  }

  body(): ApiErrorBody {
    return { error: { type: this.type, message: this.message } };
  }
}

/** The API error for anything a handler threw: client errors keep their type, the rest is `failure`. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof AgentClientError) {
    switch (err.type) {
      case 'invalid_input':
      case 'run_not_found':
      case 'run_ended':
      case 'rejected':
        return new ApiError(err.type, err.message);
      case 'unanswered':
        return new ApiError('unavailable', err.message);
      case 'start_failed':
        return new ApiError('failure', err.message);
    }
  }
  if (err instanceof SessionScheduleError) return new ApiError(err.type === 'schedule_not_found' ? 'not_found' : 'already_exists', err.message);
  if (err instanceof RunIdTakenError) return new ApiError('already_exists', err.message);
  if (err instanceof CheckpointError) return new ApiError(err.type === 'invalid_input' ? 'invalid_input' : 'rejected', err.message);
  if (err instanceof WorkflowNotFoundError) return new ApiError('run_not_found', `run ${err.workflowId} not found`);
  if (err instanceof WorkflowExecutionAlreadyStartedError) return new ApiError('already_started', `a run with id ${err.workflowId} is already running`);
  if (err instanceof WorkflowFailedError) return new ApiError('run_failed', `run failed: ${err.cause?.message ?? err.message}`);
  if (isServerUnavailable(err)) return new ApiError('unavailable', `the Temporal server is unavailable: ${(err as Error).message}`);
  return new ApiError('failure', err instanceof Error ? err.message : String(err));
}

/** gRPC NOT_FOUND, as raw service calls (history reads) report an unknown run. */
const grpcNotFound = 5;

function isGrpcNotFound(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === grpcNotFound) return true;
  }
  return false;
}

/**
 * The API error of what a route threw, for a request with path parameters `params`: a raw
 * gRPC NOT_FOUND names the run, and echoes of a parameter longer than 100 characters (a run
 * id in a client error message) are cut. Answers undefined for a failure of the server (500):
 * the app's error handler logs those.
 */
export function routeError(err: unknown, params: Readonly<Record<string, string>>): ApiError | undefined {
  const id = params.id;
  if (!(err instanceof ApiError) && isGrpcNotFound(err)) return new ApiError('run_not_found', id !== undefined ? `no run with id ${quoted(id, maxEchoChars)}` : 'not found');
  const error = toApiError(err);
  if (error.type === 'failure') return undefined;
  let message = error.message;
  for (const value of Object.values(params)) {
    if (value.length > maxEchoChars) message = message.split(value).join(`${value.slice(0, maxEchoChars)}…`);
  }
  return message === error.message ? error : new ApiError(error.type, message);
}
