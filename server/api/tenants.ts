import { z } from 'zod';
import { setTenantQuota, tenantAccount } from '../../client/tenant-accounts';
import { describeIssues } from '../../contracts/json';
import { quoted } from '../../contracts/safe-text';
import { tenantIdSchema } from '../../contracts/tenant';
import { tenantQuotaSchema } from '../../contracts/tenant-settings';
import type { ServerContext } from '../context';
import { ApiError } from '../errors';
import { route, type AnyRoute } from '../routes';

/** A path's tenant, checked: 400 naming `params.tenant`. */
function tenantParam(value: string | undefined): string {
  const parsed = tenantIdSchema().safeParse(value ?? '');
  if (!parsed.success) throw new ApiError('invalid_input', `params.tenant: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

const periodUsageSchema = z.object({
  period: z.string(),
  tokens: z.number(),
  modelCalls: z.number(),
  tokensUnknownCalls: z.number(),
  cost: z.number(),
  currency: z.string().optional(),
  costUnknownCalls: z.number(),
});

/** A tenant's account as the API answers it (the account's `tenantAccount` query). */
export const tenantAccountResponseSchema = z.object({
  tenant: z.string(),
  quota: tenantQuotaSchema(),
  configured: tenantQuotaSchema(),
  override: tenantQuotaSchema().optional(),
  running: z.number(),
  openRuns: z.number(),
  waiting: z.number(),
  queue: z.array(z.string()),
  day: periodUsageSchema,
  month: periodUsageSchema,
  hold: z.object({ limit: z.string(), reason: z.string(), until: z.string() }).optional(),
  counters: z.object({ admitted: z.number(), refused: z.number(), usageRecords: z.number() }),
});

/**
 * Tenants' accounts (docs/serving-many-users.md): read one (a token scoped to the tenant may; the
 * scope check of server/tenant-scope.ts refuses it another's) and change its quota live (an
 * admin not scoped to a tenant: a tenant may not raise its own quota).
 */
export function tenantRoutes(ctx: ServerContext): AnyRoute[] {
  const { agents } = ctx;
  const tags = ['tenants'];
  return [
    route({
      method: 'get',
      path: '/api/tenants/:tenant',
      access: 'viewer',
      summary: "A tenant's account: its quota, usage this UTC day and month, open runs, starts waiting for a slot and any hold on its model calls",
      description: '404 when the tenant has no account (no run of it has joined one, and no quota was set for it). Its runs: `GET /api/runs?tenant=`.',
      tags,
      response: tenantAccountResponseSchema,
      handle: async ({ params }) => {
        const tenant = tenantParam(params.tenant);
        const view = await tenantAccount(agents, tenant);
        if (!view) throw new ApiError('not_found', `tenant ${quoted(tenant, 100)} has no account: no run of it has joined one (do the workers have a tenants file?) and no quota was set for it`);
        return view;
      },
    }),
    route({
      method: 'put',
      path: '/api/tenants/:tenant/quota',
      access: 'admin',
      summary: "Changes a tenant's quota live (`quota: null`: back to the deployment's tenants file); answers the account after the change",
      description:
        'Waiting starts are admitted when the new quota allows them; held model calls go on when it lifts their hold. Starts the account when the tenant has none. ' +
        'Needs an admin token not scoped to a tenant (403 otherwise).',
      tags,
      body: z.object({ quota: tenantQuotaSchema().nullable() }).strict(),
      response: tenantAccountResponseSchema,
      handle: async ({ params, body, principal }) => {
        const tenant = tenantParam(params.tenant);
        if (principal.tenant !== undefined) {
          throw new ApiError('forbidden', `${principal.name} is scoped to tenant ${quoted(principal.tenant, 100)}: quotas are set by the deployment's admins (a token not scoped to a tenant)`);
        }
        return setTenantQuota(agents, tenant, body.quota, principal.name);
      },
    }),
  ];
}
