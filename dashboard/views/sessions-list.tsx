import { ErrorBox } from '../components/error-box';
import { formatTime } from '../components/json-view';
import { StatusBadge } from '../components/status-badge';
import { linkTo } from '../router';
import type { SessionSummary } from '../types';
import { useApi } from '../use-api';

/** Sessions (GET /api/sessions): one conversation each, many runs. */
export function SessionsList() {
  const sessions = useApi<{ sessions: SessionSummary[] }>('/api/sessions?limit=100', 5000);
  return (
    <section>
      <h1>Sessions</h1>
      <ErrorBox error={sessions.error} />
      {sessions.data?.sessions.length === 0 && <p class="hint">No sessions yet.</p>}
      {sessions.data && sessions.data.sessions.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Session</th>
              <th>Status</th>
              <th>Started</th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.sessions.map((s) => (
              <tr key={s.workflowId}>
                <td>
                  <a href={linkTo({ view: 'session', id: s.sessionId })}>{s.sessionId}</a>
                </td>
                <td>
                  <StatusBadge status={s.status} />
                </td>
                <td>{formatTime(s.startTime)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
