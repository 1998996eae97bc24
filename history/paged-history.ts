import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** gRPC NOT_FOUND: no such run. */
const grpcNotFound = 5;
/** gRPC RESOURCE_EXHAUSTED: here, a page over the server's internal 4 MiB message limit. */
const grpcResourceExhausted = 8;

/** Bytes of events a page aims at, well under the server's internal 4 MiB limit per page. */
const pageBudgetBytes = 1024 * 1024;
/**
 * Events of the first page: one, since nothing is known of their size yet and a single event may
 * be up to the server's blob limit (2 MiB by default); pages then double while they fit the budget.
 */
const firstPageSize = 1;
/** Most events asked for at once (the server's own default page). */
const maxPageSize = 1000;

function hasGrpcCode(err: unknown, code: number): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e as { code?: unknown }).code === code) return true;
  }
  return false;
}

/** Events the next page may ask for: twice the last page, as long as that many of the largest event seen so far fit the budget. */
function nextPageSize(last: number, largestEventBytes: number): number {
  return Math.max(1, Math.min(maxPageSize, last * 2, Math.floor(pageBudgetBytes / largestEventBytes)));
}

/**
 * A run's whole history (the latest execution unless `runId` is given), read page by page with
 * pages sized by the events seen so far. The server reads each page from its history service
 * under a 4 MiB message limit: a run with large signals in it (ten 480 KB signals) failed every
 * reader that asked for the default 1000 events at once (`fetchHistory()`), with
 * RESOURCE_EXHAUSTED. A page that fails so all the same is asked for again one event at a time.
 *
 * @throws WorkflowNotFoundError for an unknown run, as `fetchHistory()` does; other server errors as they come.
 */
export async function readHistory(client: Client, workflowId: string, runId?: string): Promise<temporal.api.history.v1.History> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let pageSize = firstPageSize;
  let largest = 1;
  let nextPageToken: Uint8Array | undefined;
  for (;;) {
    let response: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse;
    try {
      response = await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId, ...(runId ? { runId } : {}) },
        maximumPageSize: pageSize,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
    } catch (err) {
      if (hasGrpcCode(err, grpcNotFound)) throw new WorkflowNotFoundError(`run ${workflowId} not found`, workflowId, runId);
      if (!hasGrpcCode(err, grpcResourceExhausted) || pageSize === 1) throw err;
      pageSize = 1;
      continue;
    }
    const page = response.history?.events ?? [];
    for (const event of page) largest = Math.max(largest, temporal.api.history.v1.HistoryEvent.encode(event).len);
    events.push(...page);
    pageSize = nextPageSize(pageSize, largest);
    nextPageToken = response.nextPageToken && response.nextPageToken.length > 0 ? response.nextPageToken : undefined;
    if (!nextPageToken) break;
  }
  return temporal.api.history.v1.History.create({ events });
}
