import { useState } from 'preact/hooks';
import { api, runPath } from '../api';
import type { BudgetChange, CostReport } from '../types';
import { useAction } from '../use-api';
import { ErrorBox } from './error-box';
import { formatDuration } from '../durations';

/** Budget lines of a cost report and the cap each one is changed with (POST budget). */
const lines: { key: keyof Omit<CostReport, 'elapsedMs'>; cap: keyof BudgetChange; label: string }[] = [
  { key: 'iterations', cap: 'maxIterations', label: 'iterations' },
  { key: 'toolCalls', cap: 'maxToolCalls', label: 'tool calls' },
  { key: 'modelCalls', cap: 'maxModelCalls', label: 'model calls' },
  { key: 'tokens', cap: 'maxTokens', label: 'tokens' },
  { key: 'cost', cap: 'maxCost', label: 'cost' },
  { key: 'timeMs', cap: 'timeBudgetMs', label: 'time' },
  { key: 'consecutiveFailures', cap: 'maxConsecutiveFailures', label: 'consecutive failures' },
];

/** Money as people read it: at most four decimals, with its currency. */
export function formatMoney(amount: number, currency: string | undefined): string {
  const text = amount.toLocaleString('en', { maximumFractionDigits: amount !== 0 && Math.abs(amount) < 0.01 ? 4 : 2 });
  return currency ? `${text} ${currency}` : text;
}

type Line = NonNullable<CostReport[keyof Omit<CostReport, 'elapsedMs'>]>;

/** One budget line's used / cap, in its unit; calls of unknown usage or price are named, not counted as zero. */
function usedOfCap(key: string, line: Line): string {
  if (key === 'timeMs') return `${formatDuration(line.used)} / ${line.max !== undefined ? formatDuration(line.max) : '∞'}`;
  const unknown = line.unknownCalls ? ` (+ ${line.unknownCalls} call${line.unknownCalls === 1 ? '' : 's'} unknown)` : '';
  if (key === 'cost') return `${formatMoney(line.used, line.currency)} / ${line.max !== undefined ? formatMoney(line.max, line.currency) : '∞'}${unknown}`;
  return `${Math.round(line.used)} / ${line.max ?? '∞'}${unknown}`;
}

/** Used vs cap of each budget, and a form to change one cap. */
export function BudgetPanel({ workflowId, cost, canChange, onChange }: { workflowId: string; cost?: CostReport | undefined; canChange: boolean; onChange: () => void }) {
  const action = useAction();
  const [cap, setCap] = useState<keyof BudgetChange>('maxIterations');
  const [value, setValue] = useState('');
  if (!cost) return null;
  return (
    <section class="panel budget" data-testid="budget">
      <h2>Budget</h2>
      <table>
        <tbody>
          {lines.map(({ key, label }) => {
            const line = cost[key];
            // Reports of runs recorded before money was counted have no cost line.
            if (!line) return null;
            const share = line.max ? Math.min(1, line.used / line.max) : 0;
            return (
              <tr key={key} data-budget={key}>
                <td>{label}</td>
                <td class="num">{usedOfCap(key, line)}</td>
                <td>
                  <meter min={0} max={1} value={share} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {canChange && (
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            void action.run(async () => {
              const n = Number(value);
              if (!Number.isFinite(n) || n < 0 || value.trim() === '') throw new Error('the new cap must be a number ≥ 0');
              await api(runPath(workflowId, '/budget'), { [cap]: n });
              setValue('');
              onChange();
            });
          }}
        >
          <select name="cap" value={cap} onChange={(e) => setCap(e.currentTarget.value as keyof BudgetChange)}>
            {lines.map((l) => (
              <option value={l.cap}>{l.label}</option>
            ))}
          </select>
          <input name="cap-value" type="number" min={0} step="any" placeholder="new cap" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
          <button type="submit" disabled={action.busy}>
            Set cap
          </button>
        </form>
      )}
      <ErrorBox error={action.error} />
    </section>
  );
}
