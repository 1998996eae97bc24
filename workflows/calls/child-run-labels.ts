import { workflowInfo, type ChildWorkflowOptions } from '@temporalio/workflow';
import { agentNameSearchAttribute, agentTenantSearchAttribute } from '../../contracts/search-attributes';
import type { ChildTenant } from './child-tenant';
import { childRunsListed, isPatched } from '../versioning/patches';

/**
 * The memo and search attributes of a run this workflow starts (a session's run, a sub-agent's
 * run), the same a client gives a plain run: `agent` in the memo and, when this workflow has
 * AgentName itself (proof that the namespace has the attributes; setting an unknown one would
 * fail the start), AgentName, which makes the run mirror its status into AgentStatus.
 *
 * @param memo what the caller gave before 1.0.0; runs recorded before it keep exactly that.
 * @param more memo fields a client gives such a run too (e.g. `sessionId`).
 * @param tenant the child's tenant ({@link childTenant}): in its memo, and AgentTenant when listed.
 */
export function childRunLabels(
  agent: string,
  memo: Record<string, unknown> | undefined,
  more: Record<string, unknown> = {},
  tenant?: ChildTenant,
): Pick<ChildWorkflowOptions, 'memo' | 'typedSearchAttributes'> {
  if (!isPatched(childRunsListed)) return memo ? { memo } : {};
  const listed = workflowInfo().typedSearchAttributes.get(agentNameSearchAttribute) !== undefined;
  return {
    memo: { agent, ...more, ...memo, ...(tenant ? { tenant: tenant.tenant } : {}) },
    ...(listed
      ? { typedSearchAttributes: [{ key: agentNameSearchAttribute, value: agent }, ...(tenant?.listed ? [{ key: agentTenantSearchAttribute, value: tenant.tenant }] : [])] }
      : {}),
  };
}
