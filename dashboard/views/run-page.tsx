import { useEffect, useState } from 'preact/hooks';
import { runPath } from '../api';
import { Breadcrumb } from '../components/breadcrumb';
import { BudgetPanel } from '../components/budget-panel';
import { CheckpointsPanel } from '../components/checkpoints-panel';
import { ErrorBox } from '../components/error-box';
import { PendingPanel, waitsForPerson } from '../components/pending-panel';
import { RunControls } from '../components/run-controls';
import { RunTreePanel } from '../components/run-tree-panel';
import { StatusBadge, WaitingBadge } from '../components/status-badge';
import { Timeline } from '../components/timeline';
import { useRunEvents } from '../live-events';
import { rewindMarkers } from '../timeline-state';
import type { RecordedRunStatus, RunEvent, RunPending, RunRewind, RunStatusReport, RunTreeView } from '../types';
import { noWorkerNotice } from '../no-worker';
import { useApi } from '../use-api';
import { linkTo } from '../router';
import { sessionOfRun } from '../session-view';
import { counted } from '../components/json-view';

const refreshMs = 5000;

/** The status the newest `status_changed` event moved the run to. */
function lastStatusChange(events: readonly RunEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e?.type === 'status_changed') return e.to;
  }
  return undefined;
}

/** The run's own pending inputs and its tree's, as the pending panel takes them, from the tree's read. */
function pendingOf(tree: RunTreeView | undefined): RunPending | undefined {
  if (!tree) return undefined;
  const own = tree.pending.find((p) => p.path.length === 0);
  return { approvals: own?.approvals ?? [], ...(own?.await ? { await: own.await } : {}), tree: tree.pending };
}

/**
 * One run: where it sits among sub-agent runs, its live timeline (SSE) with where it was
 * rewound, what it and its sub-agent runs wait on from humans, its controls, budget and
 * checkpoints. Status and the tree (with pending inputs) are read again whenever an event arrives.
 */
export function RunPage({ workflowId, role }: { workflowId: string; role: string }) {
  // Bumped by a rewind: a run whose feed had ended goes on, so the page follows it again.
  const [generation, setGeneration] = useState(0);
  const live = useRunEvents(workflowId, generation);
  const status = useApi<RunStatusReport | RecordedRunStatus>(runPath(workflowId), live.ended ? undefined : refreshMs);
  // The tree read answers the sub-agent runs and what every run of the tree waits on, in one read.
  const tree = useApi<RunTreeView>(runPath(workflowId, '/tree'), live.ended ? undefined : refreshMs);
  // Where the run was rewound, from its history: read again after each rewind the feed shows.
  const rewinds = useApi<{ rewinds: RunRewind[] }>(`${runPath(workflowId, '/rewinds')}?v=${generation}.${live.resets}`);
  const pending = pendingOf(tree.data);
  const lastSeq = live.events.at(-1)?.seq ?? 0;
  // Checkpoints are read from the run's history: again when a turn is planned or the run ends.
  const turnsPlanned = live.events.filter((e) => e.type === 'plan').length;
  const canOperate = role === 'operator' || role === 'admin';

  const refresh = () => {
    status.reload();
    tree.reload();
  };
  // Every new event, the end of the feed and a rewind may change the status and what the run waits on.
  useEffect(refresh, [lastSeq, live.ended, live.resets]);

  // With no worker to answer, the API reads the run's history: its recorded status, no figures.
  const recorded = status.data && 'source' in status.data ? status.data : undefined;
  const report = status.data && !('source' in status.data) ? status.data : undefined;
  const noWorker = recorded?.noWorker ?? tree.data?.noWorker;
  // The live feed knows a status change first; the report (polled) fills in before any event.
  // Once the feed ended, the report read after the end is the last word.
  const reported = report?.status ?? recorded?.status;
  const runStatus = live.ended ? (reported ?? live.ended) : (lastStatusChange(live.events) ?? reported);
  // The run, or one of its sub-agent runs, waits for a person (as their histories say, with no worker).
  const waiting = (pending?.tree ?? []).some(waitsForPerson) || (tree.data?.waiting?.length ?? 0) > 0;
  const hasSubAgents = (tree.data?.runs.length ?? 0) > 1;
  const ofSession = sessionOfRun(workflowId);
  return (
    <section class="run">
      <p>
        <a href="#/runs">← runs</a>
      </p>
      <Breadcrumb parent={report?.parent} />
      {ofSession && (
        <p class="meta">
          run #{ofSession.runNumber} of session{' '}
          <a href={linkTo({ view: 'session', id: ofSession.sessionId })} data-testid="session-link">
            {ofSession.sessionId}
          </a>
        </p>
      )}
      <h1>
        {workflowId} {runStatus && <StatusBadge status={runStatus} />} {waiting && <WaitingBadge />}
      </h1>
      {report && (
        <p class="meta" data-testid="run-meta">
          agent <b>{report.agent}</b>
          {report.tenant && <span data-testid="run-tenant"> · tenant <a href={linkTo({ view: 'tenant', tenant: report.tenant })}><b>{report.tenant}</b></a></span>} · turn {report.turn} · {counted(report.iteration, 'tool turn')}
          {report.pauseReason && runStatus === 'paused' ? ` · paused: ${report.pauseReason}` : ''}
          {report.waitingFor && (
            <span class="waiting-provider" data-testid="waiting-for-provider" title={`${report.waitingFor.errorType}: ${report.waitingFor.error}`}>
              {` · waiting for ${report.waitingFor.kind === 'model' ? `the model provider (${report.waitingFor.name})` : `MCP server ${report.waitingFor.name}`} since ${report.waitingFor.since.slice(11, 19)}, after ${report.waitingFor.attempts} failed attempt(s)`}
            </span>
          )}
          {report.parent && (
            <>
              {' · sub-agent of '}
              <a href={linkTo({ view: 'run', id: report.parent.workflowId })} data-testid="parent-link">
                {report.parent.workflowId}
              </a>{' '}
              (call {report.parent.toolCallId})
            </>
          )}
        </p>
      )}
      {recorded && (
        <p class="meta" data-testid="run-meta">
          agent <b>{recorded.agent ?? '-'}</b> · {counted(recorded.turns, 'turn')} begun · {counted(recorded.toolCalls, 'tool call')} · as its history records it
        </p>
      )}
      {noWorker && (
        <p class="notice no-worker" role="status" data-testid="no-worker" data-task-queue={noWorker.taskQueue}>
          {noWorkerNotice(noWorker)}
        </p>
      )}
      <ErrorBox error={status.error} />
      <RunControls workflowId={workflowId} status={runStatus} role={role} onChange={refresh} />
      <PendingPanel pending={pending} canAnswer={canOperate} onChange={refresh} subAgentsBelow={hasSubAgents} />
      <ErrorBox error={tree.error} />
      <RunTreePanel tree={tree.data} canAnswer={canOperate} onChange={refresh} />
      <div class="columns">
        <section class="panel events">
          <h2>
            Events <span class={`live live-${live.state}`}>{live.ended ? `ended: ${live.ended}` : live.state}</span>
          </h2>
          <ErrorBox error={live.error} />
          <Timeline events={live.events} streaming={live.streaming} resets={live.resets} rewinds={rewindMarkers(live.rewinds, rewinds.data?.rewinds)} />
        </section>
        <aside>
          <BudgetPanel workflowId={workflowId} cost={report?.cost} canChange={canOperate && !live.ended} onChange={refresh} />
          <CheckpointsPanel
            workflowId={workflowId}
            isAdmin={role === 'admin'}
            version={`${generation}.${turnsPlanned}.${live.ended ?? ''}.${live.resets}`}
            onRewound={() => {
              if (live.ended) setGeneration((g) => g + 1);
              refresh();
            }}
          />
        </aside>
      </div>
    </section>
  );
}
