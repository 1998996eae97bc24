import { setTenantQuota, tenantAccount } from '../../client/tenant-accounts';
import { AgentClientError } from '../../client/errors';
import type { PeriodUsage, TenantAccountView } from '../../contracts/tenant-account';
import { tenantIdSchema } from '../../contracts/tenant';
import type { TenantQuota } from '../../contracts/tenant-settings';
import type { ParsedArgs } from '../args';
import type { Command } from '../command';
import { UsageError } from '../exit-codes';

const subcommands = ['show', 'quota'] as const;
type Subcommand = (typeof subcommands)[number];

/** Quota fields by flag: integers, amounts of money, and the policy. */
const countFlags = { 'concurrent-runs': 'concurrentRuns', 'starts-per-minute': 'startsPerMinute', 'tokens-per-day': 'tokensPerDay', 'tokens-per-month': 'tokensPerMonth' } as const;
const moneyFlags = { 'cost-per-day': 'costPerDay', 'cost-per-month': 'costPerMonth' } as const;
const quotaFlags = [...Object.keys(countFlags), ...Object.keys(moneyFlags), 'when-over', 'reset'];

/** The quota change the flags ask for: fields to set, or `null` (--reset: back to the tenants file). */
export function quotaChangeOf(args: ParsedArgs): Partial<TenantQuota> | null {
  const change: Partial<Record<keyof TenantQuota, unknown>> = {};
  for (const [flag, field] of Object.entries(countFlags)) {
    const value = args.int(flag, 0);
    if (value !== undefined) change[field] = value;
  }
  for (const [flag, field] of Object.entries(moneyFlags)) {
    // An amount of money >= 0: a quota of 0 stops the tenant's model calls.
    const value = args.amount(flag);
    if (value !== undefined) change[field] = value;
  }
  const whenOver = args.string('when-over');
  if (whenOver !== undefined) {
    if (whenOver !== 'wait' && whenOver !== 'refuse') throw new UsageError(`--when-over must be wait or refuse, got '${whenOver}'`);
    change.whenOver = whenOver;
  }
  const given = Object.keys(change).length > 0;
  if (args.flag('reset')) {
    if (given) throw new UsageError('--reset goes back to the tenants file: give it alone, without other quota flags');
    return null;
  }
  if (!given) throw new UsageError(`name at least one quota (${quotaFlags.filter((f) => f !== 'reset').map((f) => `--${f}`).join(', ')}) or --reset`);
  return change as Partial<TenantQuota>;
}

/** `concurrentRuns 5 · costPerDay 2.5 · whenOver wait`, or `none`. */
function quotaText(quota: TenantQuota): string {
  const parts = Object.entries(quota).map(([field, value]) => `${field} ${String(value)}`);
  return parts.length ? parts.join(' · ') : 'none (not limited)';
}

function money(value: number): string {
  return String(Math.round(value * 10_000) / 10_000);
}

/** `2026-11-29: 1234 of 10000 tokens, 0.12 of 2.5 USD, 7 model calls (+ 1 of unknown cost)`. */
function usageText(usage: PeriodUsage, tokenQuota: number | undefined, costQuota: number | undefined): string {
  const currency = usage.currency ? ` ${usage.currency}` : '';
  const tokens = `${usage.tokens}${tokenQuota !== undefined ? ` of ${tokenQuota}` : ''} tokens`;
  const cost = `${money(usage.cost)}${costQuota !== undefined ? ` of ${money(costQuota)}` : ''}${currency}`;
  const unknown = usage.costUnknownCalls ? ` (+ ${usage.costUnknownCalls} of unknown cost)` : '';
  return `${usage.period}: ${tokens}, ${cost}, ${usage.modelCalls} model call${usage.modelCalls === 1 ? '' : 's'}${unknown}`;
}

/** An account as `tenant show` prints it. */
export function renderTenantAccount(view: TenantAccountView): string[] {
  const { quota } = view;
  const rows: [string, string][] = [
    ['tenant', view.tenant],
    ['quota', `${quotaText(quota)}${view.override ? ' (set live; the tenants file: ' + quotaText(view.configured) + ')' : ''}`],
    ['today', usageText(view.day, quota.tokensPerDay, quota.costPerDay)],
    ['this month', usageText(view.month, quota.tokensPerMonth, quota.costPerMonth)],
    ['runs', `${view.openRuns} open, ${view.running}${quota.concurrentRuns !== undefined ? ` of ${quota.concurrentRuns}` : ''} counting against concurrentRuns`],
    ['waiting', view.waiting === 0 ? 'no start waits' : `${view.waiting} start${view.waiting === 1 ? '' : 's'}: ${view.queue.join(', ')}${view.queue.length < view.waiting ? ' …' : ''}`],
    ['hold', view.hold ? `model calls held until ${view.hold.until}: ${view.hold.reason}` : 'none'],
    ['counted', `${view.counters.admitted} admitted, ${view.counters.refused} refused since the account began`],
  ];
  return rows.map(([k, v]) => `${k.padEnd(12)}${v}`);
}

function tenantArg(args: ParsedArgs): string {
  const tenant = args.positionals[1];
  if (tenant === undefined) throw new UsageError('missing TENANT: the tenant id');
  const parsed = tenantIdSchema().safeParse(tenant);
  if (!parsed.success) throw new UsageError(`TENANT: ${parsed.error.issues[0]?.message ?? 'not a tenant id'}`);
  return parsed.data;
}

/** `tenant show|quota TENANT`: a tenant's account (quota, usage, open and waiting runs, hold) and its quota, changed live. */
export const tenantCommand: Command = {
  name: 'tenant',
  summary: "tenant show|quota TENANT: a tenant's quota, usage today and this month, open and waiting runs and hold; change its quota live",
  details:
    "Every tenant of a deployment with a tenants file has an account (workflow durable-agents-tenant:TENANT).\n" +
    "'quota' changes the flags' fields of the quota in force and keeps the others (a tenant without an\n" +
    "account yet: the flags are its whole quota); waiting starts and held model calls go on when it\n" +
    "allows them. '--reset' goes back to the deployment's tenants file. Its runs: 'list --tenant TENANT'.",
  positionals: ['SUBCOMMAND', 'TENANT'],
  optionalPositionals: 2,
  options: {
    'concurrent-runs': { type: 'string', value: 'N', description: 'quota: runs open at once (sub-agent runs are their tree\'s)' },
    'starts-per-minute': { type: 'string', value: 'N', description: 'quota: runs started in any minute' },
    'tokens-per-day': { type: 'string', value: 'N', description: 'quota: model tokens per UTC day' },
    'tokens-per-month': { type: 'string', value: 'N', description: 'quota: model tokens per UTC month' },
    'cost-per-day': { type: 'string', value: 'AMOUNT', description: "quota: money per UTC day, in the workers' price table currency (e.g. 25)" },
    'cost-per-month': { type: 'string', value: 'AMOUNT', description: 'quota: money per UTC month' },
    'when-over': { type: 'string', value: 'wait|refuse', description: 'quota: a start over the concurrency or start-rate quota waits in line or is refused' },
    reset: { type: 'boolean', description: "quota: drop the live quota, back to the deployment's tenants file" },
  },
  examples: ['tenant show acme', 'tenant show acme --json', 'tenant quota acme --concurrent-runs 5 --starts-per-minute 60 --cost-per-day 25 --when-over wait', 'tenant quota acme --reset'],
  prepare(args) {
    const sub = args.positionals[0];
    if (sub === undefined) throw new UsageError(`missing subcommand; use one of ${subcommands.join(', ')}`);
    if (!(subcommands as readonly string[]).includes(sub)) throw new UsageError(`unknown tenant subcommand '${sub}'; use one of ${subcommands.join(', ')}`);
    const subcommand = sub as Subcommand;
    const tenant = tenantArg(args);
    if (subcommand === 'show') {
      for (const flag of quotaFlags) {
        if (args.string(flag) !== undefined || args.flag(flag)) throw new UsageError(`--${flag} is not an option of 'tenant show' (use 'tenant quota')`);
      }
      return async (ctx) => {
        const view = await tenantAccount(ctx.agents, tenant);
        if (!view) throw new AgentClientError('run_not_found', `tenant ${tenant} has no account: no run of it has joined one (do the workers have a tenants file?) and no quota was set for it`);
        ctx.out.emit(view, () => renderTenantAccount(view));
      };
    }
    const change = quotaChangeOf(args);
    return async (ctx) => {
      let quota: TenantQuota | null = null;
      if (change !== null) quota = { ...(await tenantAccount(ctx.agents, tenant))?.quota, ...change };
      const view = await setTenantQuota(ctx.agents, tenant, quota, 'agentctl');
      ctx.out.emit(view, () => renderTenantAccount(view));
    };
  },
};
