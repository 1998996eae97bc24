import type { temporal } from '@temporalio/proto';
import { fetchDecodedHistory } from '../history/decoded-history';
import { readOrRecorded } from './no-worker-reads';
import type { TreeRuns } from './tree-runs';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A sub-agent run as its parent's history records its start. */
export interface RecordedChildRun {
  readonly workflowId: string;
  /** The parent's call that started it: the last segment of its workflow id (`sub-<epoch>/<call id>`). */
  readonly toolCallId: string;
}

/** The sub-agent runs an execution's history started, in the order it started them. */
export function recordedChildRuns(events: readonly HistoryEvent[]): RecordedChildRun[] {
  return events.flatMap((e) => {
    const id = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
    return id ? [{ workflowId: id, toolCallId: id.slice(id.lastIndexOf('/') + 1) }] : [];
  });
}

/** How long {@link childRunFor} waits for the parent's worker before it reads the parent's history. */
const statusTimeoutMs = 5_000;

/**
 * The workflow id of the sub-agent run that call `toolCallId` of run `workflowId` started: from
 * the run's status while a worker answers it, else from its history at once (no worker polls the
 * run's task queue) or after one unanswered status query. Undefined when the call started none.
 */
export async function childRunFor(agents: TreeRuns, workflowId: string, toolCallId: string): Promise<string | undefined> {
  return readOrRecorded(
    agents,
    workflowId,
    async () => (await agents.run(workflowId).status({ timeoutMs: statusTimeoutMs })).children?.find((c) => c.toolCallId === toolCallId)?.workflowId,
    async () => {
      const { events } = await fetchDecodedHistory(agents.client, workflowId);
      // A call's run started again (a rewound turn) is the last one started.
      return recordedChildRuns(events ?? []).filter((c) => c.toolCallId === toolCallId).at(-1)?.workflowId;
    },
  );
}
