import { ServiceError, type Client } from '@temporalio/client';
import { queryFailure } from '../../client/query-failure';
import { RunCalls } from '../../client/run-calls';

/** A gRPC error as the SDK throws it: a ServiceError whose cause carries the status code. */
const grpc = (code: number, message = 'grpc'): ServiceError => new ServiceError('Failed to query Workflow', { cause: Object.assign(new Error(message), { code }) });

/**
 * The parts of a client RunCalls.query touches: a connection that runs a call under a deadline,
 * and a server that answers its health question (so the server is up and the run's worker is what
 * did not answer). Describing the run fails, so an error's note says the queue could not be read.
 */
function clientServing(): Client {
  return {
    connection: { withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn() },
    workflowService: { getSystemInfo: async () => ({}) },
    workflow: { getHandle: () => ({ describe: async () => Promise.reject(new Error('not here')) }) },
  } as unknown as Client;
}

describe('what a failed query says about the run\'s worker', () => {
  it.each([
    ['no worker polled the run\'s task queue lately (FAILED_PRECONDITION)', 9, 'no_poller'],
    ['cut by the deadline (DEADLINE_EXCEEDED)', 4, 'unanswered'],
    ['cut by the deadline as CANCELLED', 1, 'unanswered'],
    ['the server could not reach the worker it routed the query to (UNAVAILABLE)', 14, 'unanswered'],
    ['anything else (INTERNAL)', 13, 'other'],
  ] as const)('%s', (_what, code, failure) => {
    expect(queryFailure(grpc(code))).toBe(failure);
  });

  it('reads no gRPC code from an error that is not the server\'s', () => {
    expect(queryFailure(new Error('boom'))).toBe('other');
  });
});

describe('a query that fails before its deadline', () => {
  it('is asked again until the deadline: the worker the server routed it to had just died, and the next try reaches another', async () => {
    const failures = [grpc(14, 'sticky worker unavailable'), grpc(4, 'query timed out before a worker could process it')];
    const calls = new RunCalls(clientServing(), 'q', false);
    let asked = 0;
    const answer = await calls.query('run-1', 5_000, async () => {
      asked++;
      const failure = failures.shift();
      if (failure) throw failure;
      return 'awaiting';
    });
    expect(answer).toBe('awaiting');
    expect(asked).toBe(3);
  });

  it('ends, past its deadline, as "no worker answered", naming the run and what is known of its queue', async () => {
    const calls = new RunCalls(clientServing(), 'q', false);
    await expect(calls.query('run-1', 300, () => Promise.reject(grpc(14)))).rejects.toThrow(/^no worker answered a query of run run-1 within 300 ms: its task queue could not be read$/);
  });
});
