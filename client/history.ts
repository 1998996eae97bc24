import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

/** A run's history as JSON, in the format of `temporal workflow show --output json` and replay tools. */
export async function exportHistory(client: Client, workflowId: string, runId?: string): Promise<string> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return historyToJSON(history);
}
