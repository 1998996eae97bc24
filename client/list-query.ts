import { agentNameSearchAttribute, agentRunWorkflowType, agentStatusSearchAttribute, agentTenantSearchAttribute, type RunStatus } from '../contracts';
import { isTerminalRunStatus } from '../contracts/run';

/**
 * A visibility-query string literal: single-quoted, with backslashes and quotes escaped, so
 * any value (even `x' OR 'a' = 'a`) stays one literal.
 */
export function queryLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The list query for agent runs, e.g.
 * `WorkflowType = 'agentRun' AND AgentName = 'scripted' AND AgentStatus = 'paused' AND ExecutionStatus = 'Running'`.
 * A status only a running run reports (running, pausing, paused, awaiting) matches running
 * executions only: an execution a rewind replaced (terminated by the reset) or one that continued
 * as new keeps the AgentStatus it last reported.
 */
export function listQuery(filter: { readonly agent?: string; readonly status?: RunStatus; readonly tenant?: string }): string {
  const clauses = [`WorkflowType = ${queryLiteral(agentRunWorkflowType)}`];
  if (filter.agent !== undefined) clauses.push(`${agentNameSearchAttribute.name} = ${queryLiteral(filter.agent)}`);
  if (filter.tenant !== undefined) clauses.push(tenantClause(filter.tenant));
  if (filter.status !== undefined) clauses.push(`${agentStatusSearchAttribute.name} = ${queryLiteral(filter.status)}`);
  if (filter.status !== undefined && !isTerminalRunStatus(filter.status)) clauses.push(`ExecutionStatus = 'Running'`);
  return clauses.join(' AND ');
}

/** The clause of a listing of one tenant's runs or sessions (the AgentTenant search attribute). */
export function tenantClause(tenant: string): string {
  return `${agentTenantSearchAttribute.name} = ${queryLiteral(tenant)}`;
}
