import { activityInfo, ApplicationFailure, getClient } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { describeIssues } from '../contracts/json';
import {
  accountSignals,
  joinTenantAccountActivityName,
  joinTenantAccountInputSchema,
  sweepTenantRunsActivityName,
  tenantAccountWorkflowId,
  tenantAccountWorkflowType,
  type AccountJoin,
  type JoinTenantAccountResult,
} from '../contracts/tenant-account';
import { settingsOf, type TenantsConfig } from '../contracts/tenant-settings';

/**
 * The activities of tenant accounts (contracts/tenant-account.ts): `tenants.join` brings a run into
 * its tenant's account (signal-with-start, so the first run of a tenant starts it, on the
 * worker's task queue, with the quota of the worker's tenants file); `tenants.sweep` tells which
 * of an account's runs have closed. Without a tenants file the worker keeps no accounts: a join
 * answers `accounted: false` and the run goes on at once.
 *
 * @param client the Temporal client; default: the activity's worker client.
 */
export function createTenantAccountActivities(config: TenantsConfig | undefined, client: () => Client = getClient): Record<string, (input: unknown) => Promise<unknown>> {
  return {
    [joinTenantAccountActivityName]: async (raw): Promise<JoinTenantAccountResult> => {
      const parsed = joinTenantAccountInputSchema().safeParse(raw);
      if (!parsed.success) throw ApplicationFailure.nonRetryable(`invalid ${joinTenantAccountActivityName} input: ${describeIssues(parsed.error)}`, 'invalid_input');
      if (!config) return { accounted: false };
      const { tenant, workflowId, counts } = parsed.data;
      const configured = settingsOf(config, tenant).quota ?? {};
      const join: AccountJoin = { workflowId, counts, configured };
      await client().workflow.signalWithStart(tenantAccountWorkflowType, {
        workflowId: tenantAccountWorkflowId(tenant),
        taskQueue: activityInfo().taskQueue,
        args: [{ tenant, configured }],
        signal: accountSignals.join,
        signalArgs: [join],
      });
      return { accounted: true };
    },
    [sweepTenantRunsActivityName]: async (raw): Promise<string[]> => {
      const workflowIds = Array.isArray(raw) ? raw.filter((id): id is string => typeof id === 'string') : [];
      const closed: string[] = [];
      for (const workflowId of workflowIds) {
        try {
          const { status } = await client().workflow.getHandle(workflowId).describe();
          if (status.name !== 'RUNNING') closed.push(workflowId);
        } catch (err) {
          if (err instanceof WorkflowNotFoundError) closed.push(workflowId);
          else throw err;
        }
      }
      return closed;
    },
  };
}
