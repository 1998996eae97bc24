import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { readHistory } from '../history/paged-history';

/** A run's history as JSON, in the format of `temporal workflow show --output json` and replay tools. */
export async function exportHistory(client: Client, workflowId: string, runId?: string): Promise<string> {
  const history = await readHistory(client, workflowId, runId);
  return historyToJSON(history);
}

/** One execution of a run, exported. */
export interface ExportedExecution {
  readonly runId: string;
  /** The history as JSON, as {@link exportHistory} writes it. */
  readonly json: string;
}

/**
 * Every execution of a run up to `runId` (default: the latest), first to last: the one named and
 * each it continued from, one history each (a run that continued as new has one per execution).
 */
export async function exportExecutions(client: Client, workflowId: string, runId?: string): Promise<ExportedExecution[]> {
  const chain: ExportedExecution[] = [];
  let current: string | undefined = runId ?? (await client.workflow.getHandle(workflowId).describe()).runId;
  while (current) {
    const history = await readHistory(client, workflowId, current);
    chain.unshift({ runId: current, json: historyToJSON(history) });
    current = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return chain;
}
