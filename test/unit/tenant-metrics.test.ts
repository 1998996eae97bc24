// The tenants' gauges of the API server's /metrics, rendered from account views without a server.
import type { PeriodUsage, TenantAccountView } from '../../contracts/tenant-account';
import { renderTenantMetrics } from '../../server/api/tenant-metrics';

const usage = (period: string, more: Partial<PeriodUsage> = {}): PeriodUsage => ({ period, tokens: 0, modelCalls: 0, tokensUnknownCalls: 0, cost: 0, costUnknownCalls: 0, ...more });

function account(tenant: string, more: Partial<TenantAccountView> = {}): TenantAccountView {
  return {
    tenant,
    quota: {},
    configured: {},
    running: 0,
    openRuns: 0,
    waiting: 0,
    queue: [],
    day: usage('2026-11-29'),
    month: usage('2026-11'),
    counters: { admitted: 0, refused: 0, usageRecords: 0 },
    ...more,
  };
}

describe('renderTenantMetrics', () => {
  it('gives each tenant its cost and tokens per period, its waiting starts and its hold, under HELP and TYPE lines', () => {
    const held = account('acme', {
      waiting: 3,
      day: usage('2026-11-29', { tokens: 120, cost: 0.5, currency: 'USD' }),
      month: usage('2026-11', { tokens: 900, cost: 4.25, currency: 'USD' }),
      hold: { limit: 'costPerDay', reason: 'spent', until: '2026-11-30T00:00:00.000Z' },
    });
    const lines = renderTenantMetrics({ accounts: [held, account('globex')], truncated: false });
    expect(lines).toEqual(
      expect.arrayContaining([
        'durable_agents_tenant_cost{tenant="acme",period="day",currency="USD"} 0.5',
        'durable_agents_tenant_cost{tenant="acme",period="month",currency="USD"} 4.25',
        'durable_agents_tenant_tokens{tenant="acme",period="day"} 120',
        'durable_agents_tenant_tokens{tenant="acme",period="month"} 900',
        'durable_agents_tenant_tokens{tenant="globex",period="day"} 0',
        'durable_agents_tenant_runs_waiting{tenant="acme"} 3',
        'durable_agents_tenant_runs_waiting{tenant="globex"} 0',
        'durable_agents_tenant_quota_held{tenant="acme"} 1',
        'durable_agents_tenant_quota_held{tenant="globex"} 0',
      ]),
    );
    for (const name of ['durable_agents_tenant_cost', 'durable_agents_tenant_tokens', 'durable_agents_tenant_runs_waiting', 'durable_agents_tenant_quota_held']) {
      expect(lines.filter((line) => line.startsWith(`# HELP ${name} `) || line === `# TYPE ${name} gauge`)).toHaveLength(2);
    }
  });

  it('leaves out the cost of a period without a currency (no price table): it is unknown, not zero', () => {
    const lines = renderTenantMetrics({ accounts: [account('globex', { day: usage('2026-11-29', { tokens: 30, tokensUnknownCalls: 0, costUnknownCalls: 1 }) })], truncated: false });
    expect(lines.filter((line) => line.startsWith('durable_agents_tenant_cost{'))).toEqual([]);
    expect(lines).toContain('durable_agents_tenant_tokens{tenant="globex",period="day"} 30');
  });
});
