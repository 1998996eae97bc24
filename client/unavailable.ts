/** gRPC status UNAVAILABLE: the Temporal server cannot be reached (down, restarting, network). */
const grpcUnavailable = 14;

/**
 * The Temporal server did not answer a call that needs no worker, within its deadline: what a
 * query's timeout turns out to mean when the server, not the worker, is away. Carries gRPC
 * UNAVAILABLE's code, so {@link isServerUnavailable} holds for it.
 */
export class ServerUnreachableError extends Error {
  readonly code = grpcUnavailable;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ServerUnreachableError';
  }
}

/**
 * Whether an error says the Temporal server cannot be reached right now: gRPC UNAVAILABLE on
 * the error or anywhere in its cause chain. Worth retrying; a later call reconnects.
 */
export function isServerUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === grpcUnavailable) return true;
  }
  return false;
}
