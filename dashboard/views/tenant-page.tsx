import { ErrorBox } from '../components/error-box';
import { formatMoney } from '../components/budget-panel';
import { linkTo } from '../router';
import type { PeriodUsage, TenantAccountView, TenantQuota } from '../types';
import { useApi } from '../use-api';
import { RunsList } from './runs-list';

const refreshMs = 3000;

/** One line of usage against its quota: `used / quota` and a meter (none without a quota). */
function UsageRow({ name, used, quota, text }: { name: string; used: number; quota: number | undefined; text: (n: number) => string }) {
  const share = quota === undefined ? 0 : quota === 0 ? 1 : Math.min(1, used / quota);
  return (
    <tr data-usage={name}>
      <td>{name}</td>
      <td class="num">
        {text(used)} / {quota !== undefined ? text(quota) : '∞'}
      </td>
      {/* Past 80% the bar turns amber, at the quota red (the browser's meter colours). */}
      <td>{quota !== undefined && <meter min={0} max={1} low={0.8} high={0.999} optimum={0} value={share} />}</td>
    </tr>
  );
}

/** A period's tokens and money against the tenant's quotas of that period. */
function PeriodPanel({ title, usage, tokens, cost }: { title: string; usage: PeriodUsage; tokens: number | undefined; cost: number | undefined }) {
  return (
    <section class="panel" data-testid={`usage-${title === 'Today' ? 'day' : 'month'}`}>
      <h2>
        {title} <span class="meta">{usage.period}</span>
      </h2>
      <table>
        <tbody>
          <UsageRow name="tokens" used={usage.tokens} quota={tokens} text={(n) => String(Math.round(n))} />
          <UsageRow name="cost" used={usage.cost} quota={cost} text={(n) => formatMoney(n, usage.currency)} />
        </tbody>
      </table>
      <p class="hint">
        {usage.modelCalls} model call{usage.modelCalls === 1 ? '' : 's'}
        {usage.costUnknownCalls > 0 && ` · ${usage.costUnknownCalls} of unknown cost (not in the sum)`}
        {usage.tokensUnknownCalls > 0 && ` · ${usage.tokensUnknownCalls} without reported tokens`}
      </p>
    </section>
  );
}

function quotaText(quota: TenantQuota): string {
  const parts = Object.entries(quota).map(([field, value]) => `${field} ${String(value)}`);
  return parts.length ? parts.join(' · ') : 'none (not limited)';
}

/**
 * One tenant (`#/tenants/ID`, GET /api/tenants/ID): its quota in force, its usage today and this
 * month against it, its open runs and the starts waiting for a slot, any hold on its model calls,
 * and its runs (GET /api/runs?tenant=ID). Refreshed every few seconds.
 */
export function TenantPage({ tenant }: { tenant: string }) {
  const account = useApi<TenantAccountView>(`/api/tenants/${encodeURIComponent(tenant)}`, refreshMs);
  const view = account.data;
  return (
    <section>
      <p>
        <a href="#/runs">← runs</a>
      </p>
      <h1>Tenant {tenant}</h1>
      <ErrorBox error={account.error} />
      {view && (
        <>
          <p class="meta" data-testid="tenant-quota">
            quota <b>{quotaText(view.quota)}</b>
            {view.override ? ` · set live (the tenants file: ${quotaText(view.configured)})` : ' · from the tenants file'}
          </p>
          <p class="meta" data-testid="tenant-runs">
            {view.openRuns} open run{view.openRuns === 1 ? '' : 's'} · {view.running}
            {view.quota.concurrentRuns !== undefined ? ` of ${view.quota.concurrentRuns}` : ''} counting against concurrentRuns · {view.counters.admitted} admitted,{' '}
            {view.counters.refused} refused
          </p>
          {view.hold ? (
            <p class="error" data-testid="tenant-hold">
              Model calls held until {view.hold.until}: {view.hold.reason}
            </p>
          ) : (
            <p class="hint" data-testid="tenant-hold">
              No hold on model calls.
            </p>
          )}
          <div class="panels">
            <PeriodPanel title="Today" usage={view.day} tokens={view.quota.tokensPerDay} cost={view.quota.costPerDay} />
            <PeriodPanel title="This month" usage={view.month} tokens={view.quota.tokensPerMonth} cost={view.quota.costPerMonth} />
          </div>
          <section class="panel" data-testid="tenant-waiting">
            <h2>Waiting for a slot ({view.waiting})</h2>
            {view.waiting === 0 ? (
              <p class="hint">No start waits.</p>
            ) : (
              <ol>
                {view.queue.map((id) => (
                  <li key={id}>
                    <a href={linkTo({ view: 'run', id })}>{id}</a>
                  </li>
                ))}
                {view.queue.length < view.waiting && <li class="hint">and {view.waiting - view.queue.length} more</li>}
              </ol>
            )}
          </section>
        </>
      )}
      <RunsList tenant={tenant} />
    </section>
  );
}
