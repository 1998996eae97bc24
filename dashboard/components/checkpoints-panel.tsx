import { api, runPath } from '../api';
import { linkTo } from '../router';
import type { Checkpoint } from '../types';
import { useAction, useApi } from '../use-api';
import { ErrorBox } from './error-box';
import { formatTime } from './json-view';

/** Turn boundaries of the run (GET checkpoints) with rewind and fork (admin). */
export function CheckpointsPanel({ workflowId, isAdmin, version, onRewound }: { workflowId: string; isAdmin: boolean; version: string; onRewound: () => void }) {
  const list = useApi<{ checkpoints: Checkpoint[] }>(`${runPath(workflowId, '/checkpoints')}?v=${encodeURIComponent(version)}`);
  const action = useAction();
  const rewind = (turn: number) => {
    if (!confirm(`Rewind ${workflowId} to turn ${turn}? Turns after it run again.`)) return;
    void action.run(async () => {
      await api(runPath(workflowId, '/rewind'), { toTurn: turn });
      list.reload();
      onRewound();
    });
  };
  const fork = (turn: number) =>
    void action.run(async () => {
      const forked = await api<{ workflowId: string }>(runPath(workflowId, '/fork'), { toTurn: turn });
      location.hash = linkTo({ view: 'run', id: forked.workflowId });
    });
  return (
    <section class="panel checkpoints" data-testid="checkpoints">
      <h2>
        Checkpoints{' '}
        <button class="link" onClick={list.reload}>
          refresh
        </button>
      </h2>
      <ErrorBox error={list.error} />
      {list.data?.checkpoints.length === 0 && <p class="hint">No turn has completed yet.</p>}
      {list.data && list.data.checkpoints.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Turn</th>
              <th>Time</th>
              <th>Next turn</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.data.checkpoints.map((cp) => (
              <tr key={cp.turn}>
                <td class="num">{cp.turn}</td>
                <td>{formatTime(cp.time)}</td>
                <td>
                  {cp.summary.toolCalls.join(', ') || '—'}
                  {cp.summary.modelCalls ? ` · ${cp.summary.modelCalls} model call(s)` : ''}
                </td>
                <td>
                  <button class="secondary" disabled={!isAdmin || action.busy} onClick={() => rewind(cp.turn)}>
                    Rewind
                  </button>{' '}
                  <button class="secondary" disabled={!isAdmin || action.busy || cp.turn === 0} onClick={() => fork(cp.turn)}>
                    Fork
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorBox error={action.error} />
    </section>
  );
}
