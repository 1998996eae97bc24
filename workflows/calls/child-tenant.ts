import { workflowInfo } from '@temporalio/workflow';
import { agentTenantSearchAttribute } from '../../contracts/search-attributes';
import { runContext } from '../kernel/run-context';

/** What a run this workflow starts takes of its tenant: the input field, the memo field and the search attribute. */
export interface ChildTenant {
  readonly tenant: string;
  /** Whether the child is started with AgentTenant: this workflow has it (so the namespace has it registered). */
  readonly listed: boolean;
}

/**
 * The tenant a sub-agent or session run started by this workflow takes: this workflow's own
 * (children count against their parent's tenant). Undefined without one, where nothing changes.
 * AgentTenant is set on the child only when this workflow has it itself: setting an attribute the
 * namespace lacks would fail the start. `tenant-runs` rides on the baseline.
 *
 * @param tenant this run's or session's tenant (its input's).
 */
export function childTenant(tenant: string | undefined): ChildTenant | undefined {
  if (tenant === undefined || !runContext().work.childrenTakeTenant) return undefined;
  return { tenant, listed: workflowInfo().typedSearchAttributes.get(agentTenantSearchAttribute) !== undefined };
}
