import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';

// Which runs a workflow id has had: a start (AgentClient.start, a fork) takes the id of a closed
// run only when its caller says so. Temporal's default takes it silently: the new run then answers
// for the id in every read, and the closed run is readable only by its run id.

/**
 * A start refused because a closed run holds the workflow id (`type` `already_exists`; HTTP 409,
 * agentctl exit 1). The message names the closed run, how it ended and how to read it.
 */
export class RunIdTakenError extends Error {
  readonly type = 'already_exists' as const;

  /**
   * @param workflowId the id asked for.
   * @param runId the closed run's run id (its latest execution).
   * @param status how it ended, Temporal's status in lower case (`completed`, `failed`, `terminated`, …).
   * @param instead what the caller can do instead (default: how to start under the id anyway).
   */
  constructor(
    readonly workflowId: string,
    readonly runId: string,
    readonly status: string,
    instead = 'to start a new run under this id anyway, which then answers for the id, say so (reuseClosedId, agentctl start --reuse-closed-id)',
  ) {
    super(`a closed run has id ${workflowId} (run id ${runId}, ${status}); read it with agentctl result ${workflowId} --run-id ${runId}; ${instead}`);
    this.name = 'RunIdTakenError';
  }
}

/** Temporal's reuse policy of a start: a closed run's id only when `reuseClosedId`. A running run's id is never taken. */
export function idReusePolicy(reuseClosedId: boolean | undefined): { workflowIdReusePolicy: WorkflowIdReusePolicy } {
  return { workflowIdReusePolicy: reuseClosedId ? WorkflowIdReusePolicy.ALLOW_DUPLICATE : WorkflowIdReusePolicy.REJECT_DUPLICATE };
}

/**
 * What a start refused with `err` throws: {@link RunIdTakenError} when a closed run holds the id
 * (`instead`: what to do instead, when it is not `reuseClosedId`); anything else, a running
 * run's id included (`WorkflowExecutionAlreadyStartedError`), as it came.
 */
export async function refuseTakenId(client: Client, workflowId: string, err: unknown, instead?: string): Promise<never> {
  if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  const latest = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch(() => undefined);
  if (!latest || latest.status.name === 'RUNNING') throw err;
  throw new RunIdTakenError(workflowId, latest.runId, latest.status.name.toLowerCase(), instead);
}
