import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorBox } from '../components/error-box';
import { JsonView } from '../components/json-view';
import { SessionQueue } from '../components/session-queue';
import { StatusBadge } from '../components/status-badge';
import { linkTo } from '../router';
import { useSessionEvents } from '../session-events';
import { activeRun, sessionEventLine } from '../session-view';
import type { SessionReport } from '../types';
import { useAction, useApi } from '../use-api';

/**
 * One session: its status and active run, the messages that wait in its queue (drop, move to the
 * front, edit), its events live over the session's WebSocket, its runs in order (each turn's
 * answer or error), its state, and the next message. The report is read again at each event.
 */
export function SessionPage({ sessionId, role }: { sessionId: string; role: string }) {
  const path = `/api/sessions/${encodeURIComponent(sessionId)}`;
  const live = useSessionEvents(sessionId);
  const session = useApi<SessionReport>(path, live.ended ? undefined : 5000);
  const action = useAction();
  const [message, setMessage] = useState('');
  const report = session.data;
  const canOperate = role === 'operator' || role === 'admin';
  const lastSeq = live.events.at(-1)?.seq ?? 0;
  // Each event is a decision about the queue or the runs: read the report again.
  useEffect(() => session.reload(), [lastSeq, live.ended]);
  const active = activeRun(report);
  return (
    <section>
      <p>
        <a href="#/sessions">← sessions</a>
      </p>
      <h1>
        {sessionId} {report && <StatusBadge status={report.open ? 'open' : 'closed'} />}
      </h1>
      <ErrorBox error={session.error} />
      {report && (
        <>
          <p class="meta" data-testid="session-meta">
            agent <b>{report.agent}</b> · {report.historyLength} message(s) in the conversation
            {report.whenBusy && ` · a message while a run is active: ${report.whenBusy}`}
            {' · '}
            {active ? (
              <span data-testid="active-run">
                running{' '}
                <a href={linkTo({ view: 'run', id: active.workflowId })}>
                  #{active.runNumber} {active.workflowId}
                </a>
              </span>
            ) : (
              'no run active'
            )}
          </p>
          <SessionQueue sessionPath={path} queue={report.queue ?? []} canEdit={canOperate && report.open} onChange={session.reload} />
          <h2>Runs</h2>
          <ol class="conversation">
            {report.runs.map((run) => (
              <li key={run.runNumber} class="card">
                <div>
                  <b>#{run.runNumber}</b> <a href={linkTo({ view: 'run', id: run.workflowId })}>{run.workflowId}</a> <StatusBadge status={run.status} />
                </div>
                {run.final && <p class="answer">{run.final}</p>}
                {run.error && <p class="error">{run.error}</p>}
              </li>
            ))}
          </ol>
          {report.open && canOperate && (
            <form
              class="inline"
              onSubmit={(e) => {
                e.preventDefault();
                void action.run(async () => {
                  await api(`${path}/messages`, { content: message.trim() });
                  setMessage('');
                  session.reload();
                });
              }}
            >
              <input name="message" placeholder="next message" value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
              <button type="submit" disabled={action.busy || !message.trim()}>
                Send
              </button>
            </form>
          )}
          <ErrorBox error={action.error} />
        </>
      )}
      <section class="panel events">
        <h2>
          Session events <span class={`live live-${live.state}`}>{live.ended ? `ended: ${live.ended}` : live.state}</span>
        </h2>
        <ErrorBox error={live.error} />
        <ol class="timeline" data-testid="session-events">
          {live.events.map((e) => (
            <li key={e.seq} data-type={e.type} data-seq={e.seq}>
              <span class="meta">
                #{e.seq} {e.at.slice(11, 19)}
              </span>{' '}
              {sessionEventLine(e)}
            </li>
          ))}
        </ol>
      </section>
      {report && (
        <>
          <h2>Session state</h2>
          <JsonView value={report.sessionState} />
        </>
      )}
    </section>
  );
}
