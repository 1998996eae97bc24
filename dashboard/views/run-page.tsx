import { useEffect, useState } from 'preact/hooks';
import { runPath } from '../api';
import { BudgetPanel } from '../components/budget-panel';
import { CheckpointsPanel } from '../components/checkpoints-panel';
import { ErrorBox } from '../components/error-box';
import { PendingPanel, waitsForPerson } from '../components/pending-panel';
import { RunControls } from '../components/run-controls';
import { StatusBadge, WaitingBadge } from '../components/status-badge';
import { Timeline } from '../components/timeline';
import { useRunEvents } from '../live-events';
import type { RunEvent, RunPending, RunStatusReport } from '../types';
import { useApi } from '../use-api';
import { linkTo } from '../router';
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

/**
 * One run: its live timeline (SSE), what it waits on from humans, its controls, budget and
 * checkpoints. Status and pending inputs are read again whenever an event arrives.
 */
export function RunPage({ workflowId, role }: { workflowId: string; role: string }) {
  // Bumped by a rewind: a run whose feed had ended goes on, so the page follows it again.
  const [generation, setGeneration] = useState(0);
  const live = useRunEvents(workflowId, generation);
  const status = useApi<RunStatusReport>(runPath(workflowId), live.ended ? undefined : refreshMs);
  const pending = useApi<RunPending>(runPath(workflowId, '/pending'), live.ended ? undefined : refreshMs);
  const lastSeq = live.events.at(-1)?.seq ?? 0;
  // Checkpoints are read from the run's history: again when a turn is planned or the run ends.
  const turnsPlanned = live.events.filter((e) => e.type === 'plan').length;
  const canOperate = role === 'operator' || role === 'admin';

  const refresh = () => {
    status.reload();
    pending.reload();
  };
  // Every new event, the end of the feed and a rewind may change the status and what the run waits on.
  useEffect(refresh, [lastSeq, live.ended, live.resets]);

  const report = status.data;
  // The live feed knows a status change first; the report (polled) fills in before any event.
  // Once the feed ended, the report read after the end is the last word.
  const runStatus = live.ended ? (report?.status ?? live.ended) : (lastStatusChange(live.events) ?? report?.status);
  // The run, or one of its sub-agent runs, waits for a person.
  const waiting = (pending.data?.tree ?? []).some(waitsForPerson);
  return (
    <section class="run">
      <p>
        <a href="#/runs">← runs</a>
      </p>
      <h1>
        {workflowId} {runStatus && <StatusBadge status={runStatus} />} {waiting && <WaitingBadge />}
      </h1>
      {report && (
        <p class="meta" data-testid="run-meta">
          agent <b>{report.agent}</b> · turn {report.turn} · {counted(report.iteration, 'tool turn')}
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
      {report?.children?.length ? (
        <section class="panel" data-testid="children">
          <h2>Sub-agent runs</h2>
          <ul>
            {report.children.map((c) => (
              <li key={c.workflowId}>
                {c.toolCallId} → <a href={linkTo({ view: 'run', id: c.workflowId })}>{c.workflowId}</a> {c.agent} <StatusBadge status={c.status} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <ErrorBox error={status.error} />
      <RunControls workflowId={workflowId} status={runStatus} role={role} onChange={refresh} />
      <PendingPanel pending={pending.data} canAnswer={canOperate} onChange={refresh} />
      <ErrorBox error={pending.error} />
      <div class="columns">
        <section class="panel events">
          <h2>
            Events <span class={`live live-${live.state}`}>{live.ended ? `ended: ${live.ended}` : live.state}</span>
          </h2>
          <ErrorBox error={live.error} />
          <Timeline events={live.events} streaming={live.streaming} resets={live.resets} rewinds={live.rewinds} />
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
