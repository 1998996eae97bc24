import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { readHistory } from '../history/paged-history';

/** A run's history as JSON, in the format of `temporal workflow show --output json` and replay tools. */
export async function exportHistory(client: Client, workflowId: string, runId?: string): Promise<string> {
  const history = await readHistory(client, workflowId, runId);
  return historyToJSON(history);
}
