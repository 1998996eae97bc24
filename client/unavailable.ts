/** gRPC status UNAVAILABLE: the Temporal server cannot be reached (down, restarting, network). */
const grpcUnavailable = 14;

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
