import type { AgentClient } from '../../client/agent-client';
import { listOpenRuns } from '../../client/run-list';
import type { ServerContext } from '../context';
import { route, type AnyRoute } from '../routes';
import { metricsAccountLimit, promLabel as label, renderTenantMetrics, tenantFigures, type TenantFigures } from './tenant-metrics';

/** Open runs read per scrape; beyond it the figures are partial and `durable_agents_metrics_truncated` is 1. */
export const metricsRunLimit = 2000;
/** Waiting runs whose approvals are read per scrape (one query each). */
export const metricsQueryLimit = 200;
const queryConcurrency = 8;

/** What a scrape found: open runs by agent and status, approvals waiting by agent with the oldest's age. */
export interface ApprovalFigures {
  readonly openRuns: Map<string, Map<string, number>>;
  /** Open runs that have a tenant, by tenant and status. */
  readonly openRunsByTenant: Map<string, Map<string, number>>;
  readonly approvals: Map<string, { waiting: number; oldestAgeSeconds: number }>;
  readonly truncated: boolean;
}

async function mapLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++] as T);
  });
  await Promise.all(lanes);
}

/**
 * Reads the figures from Temporal, not from any process's memory, so they are right across
 * many runs and workers and survive restarts: the open agent runs from visibility (their
 * AgentStatus), then the pending approvals of the runs that wait (`pendingInputs` query; the
 * age is now minus the approval's `requestedAt`).
 */
export async function approvalFigures(agents: AgentClient, now = Date.now()): Promise<ApprovalFigures> {
  const open = await listOpenRuns(agents, { limit: metricsRunLimit });
  const openRuns = new Map<string, Map<string, number>>();
  const openRunsByTenant = new Map<string, Map<string, number>>();
  const count = (into: Map<string, Map<string, number>>, key: string, status: string): void => {
    const byStatus = into.get(key) ?? new Map<string, number>();
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    into.set(key, byStatus);
  };
  const approvals = new Map<string, { waiting: number; oldestAgeSeconds: number }>();
  for (const run of open.entries) {
    const agent = run.agent ?? 'unknown';
    count(openRuns, agent, run.status);
    if (run.tenant !== undefined) count(openRunsByTenant, run.tenant, run.status);
    if (!approvals.has(agent)) approvals.set(agent, { waiting: 0, oldestAgeSeconds: 0 });
  }
  const awaiting = open.entries.filter((r) => r.status === 'awaiting');
  await mapLimited(awaiting.slice(0, metricsQueryLimit), queryConcurrency, async (run) => {
    // A run that closed meanwhile has nothing waiting.
    const pending = await agents.pendingInputs(run.workflowId).catch(() => undefined);
    const figures = approvals.get(run.agent ?? 'unknown');
    if (!pending || !figures) return;
    for (const approval of pending.approvals) {
      figures.waiting += 1;
      const age = Math.max(0, (now - Date.parse(approval.requestedAt)) / 1000);
      if (Number.isFinite(age)) figures.oldestAgeSeconds = Math.max(figures.oldestAgeSeconds, age);
    }
  });
  return { openRuns, openRunsByTenant, approvals, truncated: open.nextPageToken !== undefined || awaiting.length > metricsQueryLimit };
}

const help = {
  durable_agents_runs_open: 'Open agent runs by agent and AgentStatus (from Temporal visibility)',
  durable_agents_runs_open_by_tenant: 'Open agent runs that have a tenant, by AgentTenant and AgentStatus (from Temporal visibility)',
  durable_agents_approvals_waiting: 'Tool calls waiting for a human decision, by agent',
  durable_agents_approval_oldest_age_seconds: 'Age of the oldest tool call waiting for a decision, by agent',
  durable_agents_metrics_truncated: '1 when a scrape read only part of the open runs or tenant accounts (more than the limits)',
} as const;

/** The figures in Prometheus text format (version 0.0.4); with the tenants' accounts when given. */
export function renderApprovalMetrics(figures: ApprovalFigures, tenants?: TenantFigures): string {
  const lines: string[] = [];
  const family = (name: keyof typeof help, samples: string[]): void => {
    lines.push(`# HELP ${name} ${help[name]}`, `# TYPE ${name} gauge`, ...samples);
  };
  family(
    'durable_agents_runs_open',
    [...figures.openRuns].flatMap(([agent, byStatus]) => [...byStatus].map(([status, n]) => `durable_agents_runs_open{agent="${label(agent)}",status="${label(status)}"} ${n}`)),
  );
  family(
    'durable_agents_runs_open_by_tenant',
    [...figures.openRunsByTenant].flatMap(([tenant, byStatus]) => [...byStatus].map(([status, n]) => `durable_agents_runs_open_by_tenant{tenant="${label(tenant)}",status="${label(status)}"} ${n}`)),
  );
  family('durable_agents_approvals_waiting', [...figures.approvals].map(([agent, f]) => `durable_agents_approvals_waiting{agent="${label(agent)}"} ${f.waiting}`));
  family(
    'durable_agents_approval_oldest_age_seconds',
    [...figures.approvals].map(([agent, f]) => `durable_agents_approval_oldest_age_seconds{agent="${label(agent)}"} ${f.oldestAgeSeconds.toFixed(3)}`),
  );
  if (tenants) lines.push(...renderTenantMetrics(tenants));
  family('durable_agents_metrics_truncated', [`durable_agents_metrics_truncated ${figures.truncated || tenants?.truncated ? 1 : 0}`]);
  return lines.join('\n') + '\n';
}

/** `GET /metrics`: the approvals and open-run gauges for Prometheus (role viewer; a bearer token in the scrape config). */
export function metricsRoutes(ctx: ServerContext): AnyRoute[] {
  return [
    route({
      method: 'get',
      path: '/metrics',
      access: 'viewer',
      summary: "Open runs by status, approvals waiting and the oldest one's age, and each tenant's usage, waiting starts and hold, in Prometheus text format",
      description:
        `Computed from Temporal at each scrape (visibility, then the pendingInputs query of each waiting run and the tenantAccount query of each tenant account), so it counts every worker's runs. ` +
        `Reads at most ${metricsRunLimit} open runs, ${metricsQueryLimit} waiting runs and ${metricsAccountLimit} tenant accounts per scrape.`,
      tags: ['meta'],
      streams: 'text/plain; version=0.0.4',
      handle: async () => {
        const [figures, tenants] = await Promise.all([approvalFigures(ctx.agents), tenantFigures(ctx.agents)]);
        return new Response(renderApprovalMetrics(figures, tenants), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' } });
      },
    }),
  ];
}
