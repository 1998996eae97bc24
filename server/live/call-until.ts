import type { Client } from '@temporalio/client';

/**
 * Runs a Temporal client call that `stop` cancels while it runs.
 *
 * The client adds an abort listener to the signal of every call it makes under
 * `withAbortSignal`, and never removes it: under one long-lived signal, a feed that reads a run
 * once a second would keep a listener (and the gRPC call it cancels) per read, for as long as the
 * run is watched. Each call gets a signal of its own instead, tied to `stop` only while it runs.
 */
export async function callUntil<T>(client: Pick<Client, 'withAbortSignal'>, stop: AbortSignal, fn: () => Promise<T>): Promise<T> {
  const call = new AbortController();
  const cancel = (): void => call.abort();
  if (stop.aborted) call.abort();
  else stop.addEventListener('abort', cancel, { once: true });
  try {
    return await client.withAbortSignal(call.signal, fn);
  } finally {
    stop.removeEventListener('abort', cancel);
  }
}
