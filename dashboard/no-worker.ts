import type { NoWorker } from './types';

/** An ISO time as `2026-01-01 11:58:40 UTC`: the same for every viewer of a notice. */
function utc(iso: string): string {
  return `${iso.slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * What the dashboard says when the API answered a read from the run's history (`noWorker`): no
 * worker polls the run's task queue, and since when (the last poller's last access), or one
 * polled but did not answer.
 */
export function noWorkerNotice(noWorker: NoWorker): string {
  const queue = `task queue ${noWorker.taskQueue}`;
  const who = noWorker.polled
    ? `No worker answered (${queue}, last polled ${noWorker.lastSeen ? utc(noWorker.lastSeen) : 'never'})`
    : noWorker.lastSeen
      ? `No worker polls ${queue} since ${utc(noWorker.lastSeen)}`
      : `No worker polls ${queue} (none in the last 5 minutes)`;
  return `${who}: shown as its history records it. What it asks, and decisions and answers, need a worker.`;
}
