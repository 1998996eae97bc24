import { quoted } from '../../contracts/safe-text';
import type { Principal } from '../auth';
import { ApiError } from '../errors';
import type { RunFacts } from './open-runs';

/**
 * The first run of a post outside a scoped publisher's task queues, with its queue; undefined when
 * every run that exists is inside (runs that do not exist are refused anyway, in or out of scope).
 */
export function runOutsideScope(taskQueues: readonly string[], facts: ReadonlyMap<string, RunFacts | undefined>): { workflowId: string; taskQueue: string | undefined } | undefined {
  for (const [workflowId, run] of facts) {
    if (run === undefined) continue;
    if (run.taskQueue === undefined || !taskQueues.includes(run.taskQueue)) return { workflowId, taskQueue: run.taskQueue };
  }
  return undefined;
}

/**
 * Refuses a post of a publisher scoped to task queues (`taskQueues` of its token) that names a
 * run of another queue: a worker publishes for the runs it serves, so such a post is a
 * misconfigured or misused token. Unscoped publishers may post for any run.
 *
 * @throws ApiError `forbidden` naming the run, its task queue and the publisher's.
 */
export function checkPublisherScope(publisher: Principal, facts: ReadonlyMap<string, RunFacts | undefined>): void {
  const scope = publisher.taskQueues;
  if (scope === undefined) return;
  const outside = runOutsideScope(scope, facts);
  if (!outside) return;
  const queues = scope.slice(0, 10).map((q) => quoted(q, 100)).join(', ');
  throw new ApiError(
    'forbidden',
    `publisher ${quoted(publisher.name, 100)} may publish for runs on task queue${scope.length > 1 ? 's' : ''} ${queues}${scope.length > 10 ? ` and ${scope.length - 10} more` : ''}; run ${quoted(outside.workflowId, 200)} is on ${outside.taskQueue === undefined ? 'an unknown task queue' : quoted(outside.taskQueue, 100)}`,
  );
}
