import { WorkflowNotFoundError } from '@temporalio/client';
import type { AgentClient } from '../client/agent-client';
import { agentTenantSearchAttribute } from '../contracts/search-attributes';
import { quoted } from '../contracts/safe-text';
import type { Principal } from './auth';
import { ApiError } from './errors';

// What a token scoped to a tenant reaches. The one check for runs and sessions named by id is
// made where every route is mounted (server/routes.ts), before the route's handler: a route added
// later is covered without a check of its own, and a path this file does not know is refused.
// A tenant's account (`/api/tenants/:tenant…`) is reached by its own tenant's token only.

/** Paths a tenant-scoped token may use without an id (their handlers scope them to the tenant). */
const tenantPaths = new Set(['/api/health', '/api/whoami', '/api/runs', '/api/sessions']);

/**
 * Whose run or session a workflow id is: AgentTenant, else its memo; undefined without one.
 * Rejects with WorkflowNotFoundError for an id no run has.
 */
export type TenantOf = (workflowId: string) => Promise<string | undefined>;

/** The {@link TenantOf} of a server: reads the execution's search attributes (never decodes a payload it may lack the key of first). */
export function tenantOfRuns(agents: AgentClient): TenantOf {
  return async (workflowId) => {
    const description = await agents.client.workflow.getHandle(workflowId).describe();
    const fromAttribute = description.typedSearchAttributes.get(agentTenantSearchAttribute);
    if (fromAttribute !== undefined) return fromAttribute;
    const memo = description.memo?.tenant;
    return typeof memo === 'string' ? memo : undefined;
  };
}

/**
 * Refuses a tenant-scoped principal a run or session of another tenant (or of none): the route
 * `path` (Hono syntax) with `params` as mounted. A run that does not exist is left to its route
 * (a 404 tells nothing of another tenant). A principal without a tenant is not checked. Any
 * other failure to find whose a run is (Temporal unreachable, a memo this server cannot decode)
 * refuses the request: the check fails closed.
 *
 * @throws ApiError `forbidden` naming the token's tenant, never the run's.
 * @throws what `tenantOf` threw, other than WorkflowNotFoundError.
 */
export async function checkTenantScope(principal: Principal, path: string, params: Readonly<Record<string, string>>, tenantOf: TenantOf | undefined, sessionWorkflowId: (sessionId: string) => string): Promise<void> {
  const tenant = principal.tenant;
  if (tenant === undefined || principal.role === 'publisher') return;
  if (path.startsWith('/api/tenants/:tenant')) {
    if (params.tenant === tenant) return;
    throw new ApiError('forbidden', `${principal.name} is scoped to tenant ${quoted(tenant, 100)}: it reads that tenant's account only, not ${quoted(params.tenant ?? '', 100)}'s`);
  }
  const id = params.id;
  const workflowId = id === undefined ? undefined : path.startsWith('/api/runs/:id') ? id : path.startsWith('/api/sessions/:id') ? sessionWorkflowId(id) : undefined;
  if (workflowId === undefined) {
    if (tenantPaths.has(path)) return;
    throw new ApiError('forbidden', `${principal.name} is scoped to tenant ${quoted(tenant, 100)}: it reaches that tenant's runs and sessions (/api/runs, /api/sessions), not ${quoted(path, 200)}`);
  }
  let owner: string | undefined;
  try {
    owner = await tenantOf?.(workflowId);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return; // The route answers it: 404.
    throw err;
  }
  if (owner !== tenant) throw new ApiError('forbidden', `${principal.name} is scoped to tenant ${quoted(tenant, 100)}: ${quoted(workflowId, 200)} is not a run or session of that tenant`);
}

/**
 * The tenant a run or session started by `principal` takes: a scoped token's own (it may not name
 * another); else the one the body names, which only an admin may name (a trusted client).
 *
 * @throws ApiError `forbidden` when a scoped token names another tenant, or a non-admin names one.
 */
export function startTenant(principal: Principal, named: string | undefined, field = 'body.tenant'): string | undefined {
  if (principal.tenant !== undefined) {
    if (named !== undefined && named !== principal.tenant) {
      throw new ApiError('forbidden', `${field}: ${principal.name} is scoped to tenant ${quoted(principal.tenant, 100)} and may not start runs of tenant ${quoted(named, 100)}`);
    }
    return principal.tenant;
  }
  if (named !== undefined && principal.role !== 'admin') {
    throw new ApiError('forbidden', `${field}: naming a tenant needs an admin token (or a token scoped to the tenant); ${principal.name} has role ${principal.role}`);
  }
  return named;
}

/**
 * The tenant a listing of `principal` is scoped to: a scoped token's own (asking for another is
 * refused), else the one asked for (or every tenant's).
 *
 * @throws ApiError `forbidden` when a scoped token asks for another tenant's listing.
 */
export function listTenant(principal: Principal, asked: string | undefined): string | undefined {
  if (principal.tenant === undefined) return asked;
  if (asked !== undefined && asked !== principal.tenant) throw new ApiError('forbidden', `query.tenant: ${principal.name} is scoped to tenant ${quoted(principal.tenant, 100)}`);
  return principal.tenant;
}
