import { QueryNotRegisteredError, ServiceError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/common';
import { clientErrorKind, clientErrorMessage, clientErrorRow, clientErrorTable, isUnprocessedUpdate, type ClientErrorKind } from '../../client/error-table';
import { ServerUnreachableError } from '../../client/unavailable';

/** A gRPC error as the SDK throws it: a ServiceError whose cause carries the status code. */
const grpc = (code: number, message = 'grpc'): ServiceError => new ServiceError(message, { cause: Object.assign(new Error(message), { code }) });
const updateFailed = (message: string, type?: string): WorkflowUpdateFailedError => new WorkflowUpdateFailedError('Workflow Update failed', ApplicationFailure.create({ message, ...(type ? { type } : {}) }));

describe('the client error table', () => {
  const cases: [string, unknown, ClientErrorKind, string][] = [
    ['a run not found', new WorkflowNotFoundError('workflow not found', 'run-1', undefined), 'not_found', 'run_not_found'],
    ['a query of a run that ended before registering its queries', new QueryNotRegisteredError('did not register a handler for status', 5), 'no_query_handler', 'unanswered'],
    ['a query no worker answered before its deadline', grpc(4), 'query_deadline', 'unanswered'],
    ['an update whose execution closed before answering', updateFailed('closed', 'AcceptedUpdateCompletedWorkflow'), 'update_outlived_execution', 'run_ended'],
    ['an update the run refused because it has ended', updateFailed('run run-1 has ended', 'run_ended'), 'update_run_ended', 'run_ended'],
    ['an update the run refused', updateFailed('the run is not paused', 'not_paused'), 'update_rejected', 'rejected'],
    ['a start under a running run’s id', new WorkflowExecutionAlreadyStartedError('already started', 'session-1', 'agentSession'), 'already_started', 'as_is'],
    ['an unreachable server (gRPC UNAVAILABLE)', grpc(14), 'unavailable', 'as_is'],
    ['an unreachable server found out by a query', new ServerUnreachableError('the Temporal server did not answer within 2 s'), 'unavailable', 'as_is'],
    ['an error that only says the execution completed', new Error('Workflow execution already completed'), 'completed_by_message', 'run_ended'],
  ];

  it.each(cases)('maps %s to its kind and what the client throws', (_what, err, kind, becomes) => {
    expect(clientErrorKind(err)).toBe(kind);
    expect(clientErrorRow(err)?.becomes).toBe(becomes);
  });

  it('has a case above for every row', () => {
    expect(new Set(cases.map(([, , kind]) => kind))).toEqual(new Set(clientErrorTable.map((row) => row.kind)));
  });

  it('reads messages only in its last rows, after every row that reads classes, failure types and codes', () => {
    const firstByMessage = clientErrorTable.findIndex((row) => row.byMessage);
    expect(firstByMessage).toBeGreaterThan(0);
    expect(clientErrorTable.slice(firstByMessage).every((row) => row.byMessage)).toBe(true);
  });

  it('goes by the error class before its message: a refused update whose reason mentions a completed execution is still a rejection', () => {
    expect(clientErrorKind(updateFailed('Workflow execution already completed'))).toBe('update_rejected');
  });

  it('passes on an error it does not know', () => {
    expect(clientErrorRow(new Error('socket hang up'))).toBeUndefined();
    expect(clientErrorRow(grpc(3))).toBeUndefined();
    expect(clientErrorRow('a string')).toBeUndefined();
  });

  it("says what a refused update's run said, and names the run otherwise", () => {
    expect(clientErrorMessage('update_rejected', updateFailed('the run is not paused', 'not_paused'), 'run-1')).toBe('the run is not paused');
    expect(clientErrorMessage('no_query_handler', new QueryNotRegisteredError('did not register', 5), 'run-1')).toBe('run run-1 cannot answer queries (it ended before it registered them)');
    expect(clientErrorMessage('completed_by_message', new Error('Workflow execution already completed'), 'run-1')).toBe('run run-1 has ended');
    expect(clientErrorMessage('update_outlived_execution', updateFailed('closed', 'AcceptedUpdateCompletedWorkflow'), 'run-1')).toMatch(/^the execution of run run-1 that took the request closed before answering it/);
  });
});

describe('an update no worker processed', () => {
  it('is told by the server’s text, the one refusal without a failure type', () => {
    expect(isUnprocessedUpdate(updateFailed("Workflow Update is rejected because it wasn't processed by worker. Probably, Workflow Update is not supported by the worker."))).toBe(true);
    expect(isUnprocessedUpdate(updateFailed('the run is not paused', 'not_paused'))).toBe(false);
    expect(isUnprocessedUpdate(new Error("wasn't processed by worker"))).toBe(false);
  });
});
