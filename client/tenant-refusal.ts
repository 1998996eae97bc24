import { agentTenantSearchAttribute } from '../contracts/search-attributes';
import { AgentClientError } from './errors';

/** The text of a refusal and of its cause (a gRPC error's `details` names what Temporal refused). */
function refusalText(err: unknown): string {
  const cause = err instanceof Error ? (err.cause as { message?: unknown; details?: unknown } | undefined) : undefined;
  return [err instanceof Error ? err.message : '', cause?.message, cause?.details].filter((t): t is string => typeof t === 'string').join(' ');
}

/**
 * A start of a run or session with a tenant that Temporal refused because the namespace has no
 * AgentTenant search attribute: a caller's setup to fix, said so with the command that fixes it.
 * Anything else is left to the caller's own handling.
 *
 * @throws AgentClientError `invalid_input` naming AgentTenant and the namespace.
 */
export function refuseUnregisteredTenant(err: unknown, tenant: string | undefined, namespace: string): void {
  if (tenant === undefined || !refusalText(err).includes(agentTenantSearchAttribute.name)) return;
  throw new AgentClientError(
    'invalid_input',
    `tenant: namespace ${namespace} has no search attribute ${agentTenantSearchAttribute.name}, which runs and sessions with a tenant are listed by; ` +
      `register it (temporal operator search-attribute create --namespace ${namespace} --name ${agentTenantSearchAttribute.name} --type Keyword) or start without a tenant`,
  );
}
