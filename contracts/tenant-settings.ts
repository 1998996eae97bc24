import { z } from 'zod';
import { describeIssues } from './json';
import { builtOnce } from './lazy';
import { tenantIdSchema } from './tenant';

/**
 * What a deployment allows one tenant: its quotas (enforced where the work happens: starts by the
 * tenant's account, model calls by the run) and its dispatch (Temporal priority and fairness).
 * Every field is optional: a field left out is not limited (quota) or Temporal's default
 * (dispatch).
 */
export const tenantQuotaSchema = builtOnce(() =>
  z
    .object({
      /** Runs of the tenant open at once (sub-agent runs are part of their tree's run and do not count). */
      concurrentRuns: z.number().int().nonnegative().optional(),
      /** Runs the tenant may start in any minute (a token bucket that refills evenly). */
      startsPerMinute: z.number().int().nonnegative().optional(),
      /** Model tokens per UTC day / calendar month (UTC), of every run of the tenant, sub-agents included. */
      tokensPerDay: z.number().int().nonnegative().optional(),
      tokensPerMonth: z.number().int().nonnegative().optional(),
      /** Money per UTC day / month, in the currency of the workers' price table (calls of unknown cost are counted apart). */
      costPerDay: z.number().nonnegative().optional(),
      costPerMonth: z.number().nonnegative().optional(),
      /** A start over `concurrentRuns` or `startsPerMinute`: waits in order (`wait`, the default) or is refused (`refuse`). */
      whenOver: z.enum(['wait', 'refuse']).optional(),
    })
    .strict(),
);
export type TenantQuota = z.infer<ReturnType<typeof tenantQuotaSchema>>;

/** How the task queue's matching serves a tenant's runs and activities (Temporal priority and fairness). */
export const tenantDispatchSchema = builtOnce(() =>
  z
    .object({
      /** Priority tier, 1 (first) to 5 (last); Temporal's default is 3. */
      priority: z.number().int().min(1).max(5).optional(),
      /** Fairness weight of the tenant's key: a tenant of weight 2 is served twice as often as one of weight 1 when both have work waiting. */
      weight: z.number().positive().max(1000).optional(),
    })
    .strict(),
);
export type TenantDispatch = z.infer<ReturnType<typeof tenantDispatchSchema>>;

export const tenantSettingsSchema = builtOnce(() =>
  z.object({ quota: tenantQuotaSchema().optional(), dispatch: tenantDispatchSchema().optional() }).strict(),
);
export type TenantSettings = z.infer<ReturnType<typeof tenantSettingsSchema>>;

/**
 * The tenants file of a deployment (`DURABLE_AGENTS_TENANTS_FILE`, the same on workers and API
 * servers): settings for every tenant (`default`) and per tenant (`tenants`), a tenant's entry
 * taking precedence field by field.
 */
export const tenantsConfigSchema = builtOnce(() =>
  z
    .object({
      default: tenantSettingsSchema().optional(),
      tenants: z.record(tenantIdSchema(), tenantSettingsSchema()).optional(),
    })
    .strict(),
);
export type TenantsConfig = z.infer<ReturnType<typeof tenantsConfigSchema>>;

/** A tenant's settings: its entry over the default, field by field. */
export function settingsOf(config: TenantsConfig, tenant: string): TenantSettings {
  const base = config.default ?? {};
  const own = config.tenants?.[tenant] ?? {};
  const quota = base.quota || own.quota ? { ...base.quota, ...own.quota } : undefined;
  const dispatch = base.dispatch || own.dispatch ? { ...base.dispatch, ...own.dispatch } : undefined;
  return { ...(quota ? { quota } : {}), ...(dispatch ? { dispatch } : {}) };
}

/**
 * Parses a tenants file's content.
 *
 * @throws Error naming `where` (the variable and file) and the field that is wrong.
 */
export function parseTenantsConfig(raw: unknown, where: string): TenantsConfig {
  const parsed = tenantsConfigSchema().safeParse(raw);
  if (!parsed.success) throw new Error(`${where}: ${describeIssues(parsed.error)}`);
  return parsed.data;
}
