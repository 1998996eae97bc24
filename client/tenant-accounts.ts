import { WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { describeIssues } from '../contracts/json';
import {
  setTenantQuotaInputSchema,
  tenantAccountMessages,
  tenantAccountWorkflowId,
  tenantAccountWorkflowType,
  type TenantAccountView,
} from '../contracts/tenant-account';
import type { TenantQuota } from '../contracts/tenant-settings';
import { tenantIdSchema } from '../contracts/tenant';
import type { AgentClient } from './agent-client';
import { AgentClientError } from './errors';

function checkedTenant(tenant: string): string {
  const parsed = tenantIdSchema().safeParse(tenant);
  if (!parsed.success) throw new AgentClientError('invalid_input', `tenant: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * A tenant's account: its quota, usage this UTC day and month, open runs and the starts waiting
 * for a slot (docs/serving-many-users.md). Undefined when the tenant has none yet (no run of it
 * joined one: the deployment's workers have no tenants file, or the tenant has not run).
 *
 * @throws AgentClientError `invalid_input` for a malformed tenant id.
 */
export async function tenantAccount(agents: AgentClient, tenant: string): Promise<TenantAccountView | undefined> {
  const handle = agents.client.workflow.getHandle(tenantAccountWorkflowId(checkedTenant(tenant)));
  try {
    return await handle.query(tenantAccountMessages.view);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

/**
 * Changes a tenant's quota live (`null`: back to the deployment's tenants file): waiting starts
 * are admitted when it allows them, and held model calls go on when it lifts their hold. Starts
 * the tenant's account on the client's task queue when it has none, so a quota can be set before
 * the tenant's first run. Answers the account after the change.
 *
 * @throws AgentClientError `invalid_input` naming the field of a bad quota.
 */
export async function setTenantQuota(agents: AgentClient, tenant: string, quota: TenantQuota | null, by?: string): Promise<TenantAccountView> {
  const id = checkedTenant(tenant);
  const input = { quota, ...(by ? { by } : {}) };
  const parsed = setTenantQuotaInputSchema().safeParse(input);
  if (!parsed.success) throw new AgentClientError('invalid_input', `quota of tenant ${id}: ${describeIssues(parsed.error)}`);
  try {
    return await agents.client.workflow.executeUpdateWithStart(tenantAccountMessages.setQuota, {
      args: [parsed.data],
      startWorkflowOperation: new WithStartWorkflowOperation(tenantAccountWorkflowType, {
        workflowId: tenantAccountWorkflowId(id),
        taskQueue: agents.taskQueue,
        args: [{ tenant: id, configured: {} }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) throw new AgentClientError('rejected', err.cause?.message ?? err.message);
    throw err;
  }
}
