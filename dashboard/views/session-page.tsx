import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorBox } from '../components/error-box';
import { JsonView } from '../components/json-view';
import { StatusBadge } from '../components/status-badge';
import { linkTo } from '../router';
import type { SessionReport } from '../types';
import { useAction, useApi } from '../use-api';

/** One session: its runs in order (each turn's answer or error), its state, and the next message. */
export function SessionPage({ sessionId }: { sessionId: string }) {
  const path = `/api/sessions/${encodeURIComponent(sessionId)}`;
  const session = useApi<SessionReport>(path, 3000);
  const action = useAction();
  const [message, setMessage] = useState('');
  const report = session.data;
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
          <p class="meta">
            agent <b>{report.agent}</b> · {report.historyLength} message(s) in the conversation
          </p>
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
          {report.open && (
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
          <h2>Session state</h2>
          <JsonView value={report.sessionState} />
        </>
      )}
    </section>
  );
}
