import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Search attributes of agent runs, so ops tools can list runs by agent and status. They must
 * be registered on the namespace (the dev server launcher does it; see docker-compose.yml).
 * A run mirrors its status into AgentStatus only when it was started with AgentName set.
 */
export const agentNameSearchAttribute = defineSearchAttributeKey('AgentName', SearchAttributeType.KEYWORD);
export const agentStatusSearchAttribute = defineSearchAttributeKey('AgentStatus', SearchAttributeType.KEYWORD);
