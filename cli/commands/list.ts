import { runStatusSchema, type RunStatus } from '../../contracts';
import { listRuns, type RunListEntry } from '../../client/run-list';
import type { Command } from '../command';
import { UsageError } from '../exit-codes';
import { tenantOf, tenantOption } from '../tenant-option';

function renderRows(entries: readonly RunListEntry[]): string[] {
  if (entries.length === 0) return ['no runs'];
  // A TENANT column only when a listed run has one: deployments without tenants list as before.
  const tenants = entries.some((e) => e.tenant !== undefined);
  const rows = entries.map((e) => [e.workflowId, e.agent ?? '-', ...(tenants ? [e.tenant ?? '-'] : []), e.encrypted ? `${e.status} (encrypted, key id ${e.encrypted.keyId})` : e.status, e.startTime]);
  const header = ['RUN', 'AGENT', ...(tenants ? ['TENANT'] : []), 'STATUS', 'STARTED'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows].map((r) => r.map((cell, i) => (i < r.length - 1 ? cell.padEnd(widths[i] ?? 0) : cell)).join('  '));
}

/** `list`: runs by agent, status and tenant, through the AgentName / AgentStatus / AgentTenant search attributes. */
export const listCommand: Command = {
  name: 'list',
  summary: 'list runs by agent, status and tenant (newest first)',
  positionals: [],
  options: {
    agent: { type: 'string', value: 'NAME', description: 'only runs of this agent' },
    status: { type: 'string', value: 'STATUS', description: `only runs in this status: ${runStatusSchema.unwrap().options.join(', ')}` },
    tenant: { ...tenantOption, description: "only this tenant's runs" },
    limit: { type: 'string', value: 'N', description: 'at most N runs (default 50)' },
  },
  examples: ['list --agent watchlist --status paused', 'list --tenant acme'],
  prepare(args) {
    const statusText = args.string('status');
    let status: RunStatus | undefined;
    if (statusText !== undefined) {
      const parsed = runStatusSchema.safeParse(statusText);
      if (!parsed.success) throw new UsageError(`--status: '${statusText}' is not a run status; use one of ${runStatusSchema.unwrap().options.join(', ')}`);
      status = parsed.data;
    }
    const agent = args.string('agent');
    const limit = args.int('limit') ?? 50;
    const tenant = tenantOf(args);
    const filter = { ...(agent !== undefined ? { agent } : {}), ...(status !== undefined ? { status } : {}), ...(tenant !== undefined ? { tenant } : {}) };
    return async (ctx) => {
      const { entries } = await listRuns(ctx.agents, filter, { limit });
      ctx.out.emit(entries, () => renderRows(entries));
    };
  },
};
