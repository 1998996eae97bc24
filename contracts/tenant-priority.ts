import type { Priority } from '@temporalio/common';
import { settingsOf, type TenantsConfig } from './tenant-settings';

/**
 * The Temporal priority of a tenant's run: its fairness key is the tenant, its tier and weight
 * those of the tenant's `dispatch` settings (its entry over the default). A run without a tenant
 * gets none, so what it sends Temporal is unchanged. The run's activities and child workflows
 * (sub-agent and session runs) inherit it on the server; nothing else sets one.
 *
 * @param config the deployment's tenants file (`DURABLE_AGENTS_TENANTS_FILE`); without one a
 *   tenant's run still has its fairness key, with Temporal's default tier and weight.
 * @example
 * tenantPriority({ tenants: { acme: { dispatch: { priority: 2, weight: 3 } } } }, 'acme');
 * // { priorityKey: 2, fairnessKey: 'acme', fairnessWeight: 3 }
 */
export function tenantPriority(config: TenantsConfig | undefined, tenant: string | undefined): Priority | undefined {
  if (tenant === undefined) return undefined;
  const dispatch = config ? settingsOf(config, tenant).dispatch : undefined;
  return {
    ...(dispatch?.priority !== undefined ? { priorityKey: dispatch.priority } : {}),
    fairnessKey: tenant,
    ...(dispatch?.weight !== undefined ? { fairnessWeight: dispatch.weight } : {}),
  };
}

/** The `priority` start option of a tenant's run or session ({@link tenantPriority}); none without a tenant. */
export function tenantPriorityOption(config: TenantsConfig | undefined, tenant: string | undefined): { priority?: Priority } {
  const priority = tenantPriority(config, tenant);
  return priority ? { priority } : {};
}
