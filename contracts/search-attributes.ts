import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Search attributes of agent runs, so ops tools can list runs by agent and status. They must
 * be registered on the namespace (the dev server launcher does it; see docker-compose.yml).
 * A run mirrors its status into AgentStatus only when it was started with AgentName set.
 */
export const agentNameSearchAttribute = defineSearchAttributeKey('AgentName', SearchAttributeType.KEYWORD);
export const agentStatusSearchAttribute = defineSearchAttributeKey('AgentStatus', SearchAttributeType.KEYWORD);
/**
 * Whose run or session it is (RunInput.tenant). Set at start only on runs that have a tenant, so
 * a namespace without it registered keeps working for runs without one.
 */
export const agentTenantSearchAttribute = defineSearchAttributeKey('AgentTenant', SearchAttributeType.KEYWORD);

/**
 * The search attribute and memo an agent run starts with, however it is started
 * (`AgentClient.start`, `forkRun`): lists, filters and metrics find runs by them.
 *
 * @param searchAttributes false on a namespace without AgentName registered (memo only).
 */
export function agentRunStartAttributes(input: { readonly agent: string; readonly sessionId?: string | undefined; readonly tenant?: string | undefined }, searchAttributes = true) {
  return {
    ...(searchAttributes ? { typedSearchAttributes: startSearchAttributes(input) } : {}),
    memo: { agent: input.agent, ...(input.sessionId ? { sessionId: input.sessionId } : {}), ...(input.tenant ? { tenant: input.tenant } : {}) },
  };
}

/** AgentName, and AgentTenant when the run or session has a tenant: what a client starts one with. */
export function startSearchAttributes(input: { readonly agent: string; readonly tenant?: string | undefined }) {
  return [
    { key: agentNameSearchAttribute, value: input.agent },
    ...(input.tenant ? [{ key: agentTenantSearchAttribute, value: input.tenant }] : []),
  ];
}
