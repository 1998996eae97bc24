import { isServerUnavailable, ServerUnreachableError } from '../../client/unavailable';

describe('the Temporal server being away', () => {
  it('is recognised from gRPC UNAVAILABLE anywhere in the cause chain, and from a query whose server did not answer', () => {
    const grpc = Object.assign(new Error('14 UNAVAILABLE: connection refused'), { code: 14 });
    expect(isServerUnavailable(grpc)).toBe(true);
    expect(isServerUnavailable(new Error('query failed', { cause: grpc }))).toBe(true);
    expect(isServerUnavailable(new ServerUnreachableError('the Temporal server did not answer within 2 s'))).toBe(true);
    expect(isServerUnavailable(Object.assign(new Error('4 DEADLINE_EXCEEDED'), { code: 4 }))).toBe(false);
  });
});
