import type { AgentClient } from '../../client/agent-client';
import { tenantAccountMessages, tenantAccountWorkflowType, type TenantAccountView } from '../../contracts/tenant-account';

/** Tenant accounts read per scrape (one query each); beyond it `durable_agents_metrics_truncated` is 1. */
export const metricsAccountLimit = 500;
const queryConcurrency = 8;

/** What a scrape found of the tenants' accounts. */
export interface TenantFigures {
  readonly accounts: readonly TenantAccountView[];
  readonly truncated: boolean;
}

/**
 * Reads every open tenant account (visibility: `WorkflowType="agentTenantAccount" AND
 * ExecutionStatus="Running"`, at most {@link metricsAccountLimit}), then each one's
 * `tenantAccount` query: usage and queue come from the accounts themselves, never from this
 * process. An account that does not answer (closed meanwhile, no worker) is left out.
 */
export async function tenantFigures(agents: AgentClient): Promise<TenantFigures> {
  const ids: string[] = [];
  let truncated = false;
  for await (const execution of agents.client.workflow.list({ query: `WorkflowType = '${tenantAccountWorkflowType}' AND ExecutionStatus = 'Running'`, pageSize: 100 })) {
    if (ids.length >= metricsAccountLimit) {
      truncated = true;
      break;
    }
    ids.push(execution.workflowId);
  }
  const accounts: TenantAccountView[] = [];
  let next = 0;
  const lanes = Array.from({ length: Math.min(queryConcurrency, ids.length) }, async () => {
    while (next < ids.length) {
      const id = ids[next++] as string;
      const view = await agents.client.workflow.getHandle(id).query(tenantAccountMessages.view).catch(() => undefined);
      if (view) accounts.push(view);
    }
  });
  await Promise.all(lanes);
  accounts.sort((a, b) => a.tenant.localeCompare(b.tenant));
  return { accounts, truncated };
}

const help = {
  durable_agents_tenant_cost: "Model cost of a tenant's runs this UTC day or month, in the price table's currency (calls of unknown cost not included)",
  durable_agents_tenant_tokens: "Model tokens of a tenant's runs this UTC day or month",
  durable_agents_tenant_runs_waiting: "A tenant's starts waiting for a slot of its concurrency or start-rate quota",
  durable_agents_tenant_quota_held: "1 while a tenant's model calls are held because a token or money quota is spent",
} as const;

/** A Prometheus label value, escaped. */
export function promLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** The tenants' gauges in Prometheus text format (version 0.0.4), each family with its HELP and TYPE lines. */
export function renderTenantMetrics(figures: TenantFigures): string[] {
  const lines: string[] = [];
  const family = (name: keyof typeof help, samples: string[]): void => {
    lines.push(`# HELP ${name} ${help[name]}`, `# TYPE ${name} gauge`, ...samples);
  };
  const periods = (view: TenantAccountView) => [['day', view.day], ['month', view.month]] as const;
  family(
    'durable_agents_tenant_cost',
    figures.accounts.flatMap((view) =>
      periods(view).flatMap(([period, usage]) => (usage.currency === undefined ? [] : [`durable_agents_tenant_cost{tenant="${promLabel(view.tenant)}",period="${period}",currency="${promLabel(usage.currency)}"} ${usage.cost}`])),
    ),
  );
  family(
    'durable_agents_tenant_tokens',
    figures.accounts.flatMap((view) => periods(view).map(([period, usage]) => `durable_agents_tenant_tokens{tenant="${promLabel(view.tenant)}",period="${period}"} ${usage.tokens}`)),
  );
  family('durable_agents_tenant_runs_waiting', figures.accounts.map((view) => `durable_agents_tenant_runs_waiting{tenant="${promLabel(view.tenant)}"} ${view.waiting}`));
  family('durable_agents_tenant_quota_held', figures.accounts.map((view) => `durable_agents_tenant_quota_held{tenant="${promLabel(view.tenant)}"} ${view.hold ? 1 : 0}`));
  return lines;
}
