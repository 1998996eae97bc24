import { useState } from 'preact/hooks';
import { ErrorBox } from '../components/error-box';
import { counted, formatTime } from '../components/json-view';
import { groupByWorkflowId } from '../run-groups';
import { StatusBadge, WaitingBadge } from '../components/status-badge';
import { linkTo } from '../router';
import type { CostReport, RunSummary } from '../types';
import { useApi } from '../use-api';

const statuses = ['', 'running', 'pausing', 'paused', 'awaiting', 'completed', 'failed', 'terminated'];
const refreshMs = 3000;

/** Tool calls, model calls and tokens a run has used, in one short line. */
function costLine(cost: CostReport | undefined): string {
  if (!cost) return '';
  const parts = [counted(cost.toolCalls.used, 'tool call')];
  if (cost.modelCalls.used > 0) parts.push(counted(cost.modelCalls.used, 'model call'), counted(cost.tokens.used, 'token'));
  return parts.join(' · ');
}

/**
 * Recent runs (GET /api/runs with their turn and cost), filtered by agent and status, refreshed
 * every few seconds; with `tenant`, that tenant's runs only (a tenant's page).
 */
export function RunsList({ tenant }: { tenant?: string } = {}) {
  const [agent, setAgent] = useState('');
  const [status, setStatus] = useState('');
  const [auto, setAuto] = useState(true);
  const query = new URLSearchParams({ limit: '100', details: 'true', ...(agent.trim() ? { agent: agent.trim() } : {}), ...(status ? { status } : {}), ...(tenant ? { tenant } : {}) });
  const runs = useApi<{ runs: RunSummary[] }>(`/api/runs?${query.toString()}`, auto ? refreshMs : undefined);

  return (
    <section>
      {tenant ? <h2>Runs of tenant {tenant}</h2> : <h1>Runs</h1>}
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Agent <input name="agent" value={agent} onChange={(e) => setAgent(e.currentTarget.value)} placeholder="any" />
        </label>
        <label>
          Status{' '}
          <select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            {statuses.map((s) => (
              <option value={s}>{s || 'any'}</option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" checked={auto} onChange={(e) => setAuto(e.currentTarget.checked)} /> auto-refresh
        </label>
        <button type="button" onClick={runs.reload}>
          Refresh
        </button>
      </form>
      <ErrorBox error={runs.error} />
      {runs.data && runs.data.runs.length === 0 && <p class="hint">No runs match.</p>}
      {runs.data && runs.data.runs.length > 0 && (
        <table class="runs">
          <thead>
            <tr>
              <th>Run</th>
              <th>Agent</th>
              <th>Status</th>
              <th>Turn</th>
              <th>Cost</th>
              <th>Started</th>
              <th>Closed</th>
            </tr>
          </thead>
          <tbody>
            {groupByWorkflowId(runs.data.runs).map(({ run, earlier }) => (
              <tr key={run.workflowId} data-run={run.workflowId}>
                <td>
                  <a href={linkTo({ view: 'run', id: run.workflowId })}>{run.workflowId}</a>
                  {earlier > 0 && <div class="hint" data-testid="earlier-executions">{`and ${counted(earlier, 'earlier execution')} (rewound or continued)`}</div>}
                </td>
                <td>
                  {run.agent ?? ''}
                  {run.tenant && (
                    <div class="hint" data-testid="run-tenant">
                      tenant <a href={linkTo({ view: 'tenant', tenant: run.tenant })}>{run.tenant}</a>
                    </div>
                  )}
                </td>
                <td>
                  <StatusBadge status={run.status} /> {run.waitingForHuman && <WaitingBadge />}
                  {run.encrypted && <span class="encrypted" title="set DURABLE_AGENTS_ENCRYPTION_KEYS on the server to read it">encrypted (key id {run.encrypted.keyId})</span>}
                </td>
                <td class="turn">{run.turn ?? run.iterations ?? ''}</td>
                <td class="cost">{costLine(run.cost)}</td>
                <td>{formatTime(run.startTime)}</td>
                <td>{formatTime(run.closeTime)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
