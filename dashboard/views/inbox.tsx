import { ErrorBox } from '../components/error-box';
import { formatTime } from '../components/json-view';
import { TreeEntry } from '../components/pending-panel';
import { linkTo } from '../router';
import { noWorkerNotice } from '../no-worker';
import type { Inbox } from '../types';
import { useApi } from '../use-api';

/** How many things one tree of runs asks, in words. */
function asked(count: number): string {
  return count === 1 ? '1 thing to answer' : `${count} things to answer`;
}

/**
 * Everything people are asked (GET /api/inbox), across runs, sessions' runs and sub-agent runs:
 * one block per top run, each item under the path of the run that asks, answered in place.
 */
export function InboxView({ role }: { role: string }) {
  const inbox = useApi<Inbox>('/api/inbox', 5000);
  const canAnswer = role === 'operator' || role === 'admin';
  const trees = inbox.data?.trees ?? [];
  return (
    <section class="inbox" data-testid="inbox">
      <h1>Inbox</h1>
      <ErrorBox error={inbox.error} />
      {!canAnswer && <p class="hint">Approvals and answers need the operator role.</p>}
      {inbox.data && trees.length === 0 && <p class="hint">Nothing waits for a person.</p>}
      {inbox.data?.truncated && <p class="hint">Showing the newest waiting runs only.</p>}
      {trees.map((tree) => {
        // A run whose history says it waits counts as one thing asked: what it asks needs a worker.
        const count = tree.waiting.reduce((n, entry) => n + (entry.source === 'history' ? 1 : entry.approvals.length + (entry.await?.items.filter((i) => !i.answered).length ?? 0)), 0);
        return (
          <section class="panel" key={tree.workflowId} data-testid="inbox-tree" data-workflow-id={tree.workflowId}>
            <h2>
              <a href={linkTo({ view: 'run', id: tree.workflowId })}>{tree.workflowId}</a> <span class="hint">{tree.agent}</span>
            </h2>
            <p class="hint">
              {asked(count)}
              {tree.startTime ? ` · started ${formatTime(tree.startTime)}` : ''}
            </p>
            {tree.noWorker && (
              <p class="notice no-worker" role="status" data-testid="no-worker" data-task-queue={tree.noWorker.taskQueue}>
                {noWorkerNotice(tree.noWorker)}
              </p>
            )}
            {tree.waiting.map((entry) =>
              entry.source === 'history' ? (
                <p key={entry.workflowId} data-testid="inbox-recorded" data-path={entry.path.join('/')}>
                  <a href={linkTo({ view: 'run', id: entry.workflowId })}>{entry.path.length > 0 ? `Sub-agent ${entry.path.join('/')}` : entry.workflowId}</a> waits for a person
                </p>
              ) : (
                <TreeEntry key={entry.workflowId} entry={entry} canAnswer={canAnswer} onChange={inbox.reload} testId="inbox-entry" />
              ),
            )}
          </section>
        );
      })}
    </section>
  );
}
