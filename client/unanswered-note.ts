import type { Client } from '@temporalio/client';
import { noWorkerPolls, workerPresence } from './worker-presence';

/** How long the note's two reads may take: it is written on a failure path, never worth a long wait. */
const noteDeadlineMs = 2_000;

/**
 * What an error saying no worker answered run `workflowId` adds, so that it names where the
 * worker should be: `no worker polls task queue q (last seen …)`, or `task queue q was last polled
 * at <time>; is its worker running?` when one polled lately (it may have crashed a moment ago, or
 * be too busy). `its task queue could not be read` when the server does not say within 2 s.
 */
export async function unansweredNote(client: Client, workflowId: string): Promise<string> {
  try {
    return await client.connection.withDeadline(Date.now() + noteDeadlineMs, async () => {
      const { taskQueue } = await client.workflow.getHandle(workflowId).describe();
      const presence = await workerPresence(client, taskQueue);
      return presence.polled ? `task queue ${taskQueue} was last polled at ${presence.lastSeen ?? 'an unknown time'}; is its worker running?` : noWorkerPolls(presence);
    });
  } catch {
    return 'its task queue could not be read';
  }
}
