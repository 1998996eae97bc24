import { isUnprocessedUpdate } from './error-table';

/**
 * Sends an update again when the server says no worker processed it: it reached a workflow task
 * whose completion did not take it (a task that timed out on a busy worker, or was in flight as
 * it arrived). Such an update never entered history, so sending it again applies it once; any
 * other outcome is the update's.
 */
export async function sendUntilProcessed<T>(send: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (!isUnprocessedUpdate(err) || attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 250 * attempt));
    }
  }
}
