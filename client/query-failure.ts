import { grpcCode, grpcDeadlineExceeded } from './error-table';

/** gRPC status CANCELLED: how a call cut by a client-side deadline may also end. */
const grpcCancelled = 1;
/** gRPC status FAILED_PRECONDITION: a query of a run whose task queue no worker polled lately. */
const grpcFailedPrecondition = 9;
/** gRPC status UNAVAILABLE: the server, or the worker the server routed the query to, could not be reached. */
const grpcUnavailable = 14;

/**
 * What a failed query says about the run's worker:
 * - `no_poller`: the server did not wait, because no worker has polled the run's task queue for a
 *   while (a crashed worker, once the server noticed);
 * - `unanswered`: the query was cut by its deadline, or the server could not reach the worker it
 *   routed the query to (the run's cached worker just died): no worker answered in time, unless
 *   the server itself is away, which the caller checks next;
 * - `other`: anything else, for the error table.
 *
 * A deadline is read from the gRPC code alone, never from the clock: the server may end the call
 * on its own copy of the deadline, a moment before the client's.
 */
export function queryFailure(err: unknown): 'no_poller' | 'unanswered' | 'other' {
  const code = grpcCode(err);
  if (code === grpcFailedPrecondition) return 'no_poller';
  if (code === grpcDeadlineExceeded || code === grpcCancelled || code === grpcUnavailable) return 'unanswered';
  return 'other';
}
