import type { Client } from '@temporalio/client';
import { agentNameSearchAttribute, agentStatusSearchAttribute } from '../contracts';
import { fetchDecodedHistory } from '../history/decoded-history';
import { historySummary, type HistoryStatus } from './history-view';
import { runWorkerVersion } from './worker-version';

/**
 * What the history and memo of run `workflowId` say of it, with no worker involved: its
 * agent, status as last reported, turns and calls so far, and its failure or result once ended.
 */
export async function statusFromHistory(client: Client, workflowId: string): Promise<HistoryStatus> {
  const description = await client.workflow.getHandle(workflowId).describe();
  const { events } = await fetchDecodedHistory(client, workflowId, description.runId);
  const agent = description.typedSearchAttributes.get(agentNameSearchAttribute) ?? description.memo?.agent;
  const reported = description.typedSearchAttributes.get(agentStatusSearchAttribute);
  const workflowStatus = description.status.name;
  return {
    source: 'history' as const,
    workflowId,
    runId: description.runId,
    agent: typeof agent === 'string' ? agent : null,
    // The run's own status only while it runs: once closed, Temporal's status is the truth.
    status: workflowStatus === 'RUNNING' && reported ? reported : workflowStatus.toLowerCase(),
    workflowStatus,
    historyLength: description.historyLength,
    startTime: description.startTime.toISOString(),
    closeTime: description.closeTime?.toISOString() ?? null,
    workerVersion: runWorkerVersion(description),
    ...historySummary(events ?? []),
  };
}
