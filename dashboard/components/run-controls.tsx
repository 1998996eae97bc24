import { useState } from 'preact/hooks';
import { api, runPath } from '../api';
import { useAction } from '../use-api';
import { ErrorBox } from './error-box';

const open = new Set(['running', 'pausing', 'paused', 'awaiting']);

/**
 * Pause (waits for the run's next safe point), resume and kill. Each answers when the run has
 * done it; the page then reads the run again.
 */
export function RunControls({ workflowId, status, role, onChange }: { workflowId: string; status?: string | undefined; role: string; onChange: () => void }) {
  const action = useAction();
  const [reason, setReason] = useState('');
  const canOperate = role === 'operator' || role === 'admin';
  const reasonBody = reason.trim() ? { reason: reason.trim() } : {};
  const post = (path: string, body: object) =>
    void action.run(async () => {
      await api(runPath(workflowId, path), body);
      onChange();
    });
  if (!status || !open.has(status)) return null;
  return (
    <section class="panel controls" data-testid="controls">
      <input name="control-reason" placeholder="reason (optional)" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      {status === 'paused' ? (
        <button disabled={!canOperate || action.busy} onClick={() => post('/resume', reasonBody)}>
          Resume
        </button>
      ) : (
        <button disabled={!canOperate || action.busy || status === 'pausing'} onClick={() => post('/pause', reasonBody)}>
          {action.busy ? 'Pausing…' : 'Pause'}
        </button>
      )}
      <button
        class="danger"
        disabled={role !== 'admin'}
        title={role === 'admin' ? '' : 'needs the admin role'}
        onClick={() => {
          if (confirm(`Kill run ${workflowId}? Its running tools are cancelled.`)) post('/kill', reasonBody);
        }}
      >
        Kill
      </button>
      {!canOperate && <span class="hint">your role ({role}) can only watch</span>}
      <ErrorBox error={action.error} />
    </section>
  );
}
