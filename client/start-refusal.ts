import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { WorkflowIdReusePolicy } from '@temporalio/common';
import { isWellFormedText, quoted } from '../contracts/safe-text';
import { AgentClientError } from './errors';

/**
 * A start refused because a closed run holds the workflow id (`already_exists`). Started anyway,
 * the new run would take the id over: `result`, `status`, `events` and the dashboard would show it,
 * and the closed run's result would be readable only by its run id.
 */
export class RunIdTakenError extends AgentClientError {
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
    super('already_exists', `a closed run has id ${workflowId} (run id ${runId}, ${status}); read it with agentctl result ${workflowId} --run-id ${runId}; ${instead}`);
    this.name = 'RunIdTakenError';
  }
}

/**
 * Temporal's reuse policy of a start: a closed run's id is taken only when the caller says so
 * (Temporal's default would take it silently). A running run's id is never taken.
 */
export function idReusePolicy(reuseClosedId: boolean | undefined): { workflowIdReusePolicy: WorkflowIdReusePolicy } {
  return { workflowIdReusePolicy: reuseClosedId ? WorkflowIdReusePolicy.ALLOW_DUPLICATE : WorkflowIdReusePolicy.REJECT_DUPLICATE };
}

/**
 * What a start that failed with `err` throws: {@link RunIdTakenError} naming the closed run when a
 * closed run holds the id (with `instead`, what to do instead, when it is not {@link idReusePolicy}'s option); `invalid_input` naming an id Temporal could not take because it is not
 * well-formed text (the SDK says only "Failed to start Workflow"); anything else, a running run's
 * id included (`WorkflowExecutionAlreadyStartedError`), as it came.
 */
export async function startRefusal(client: Client, workflowId: string, err: unknown, instead?: string): Promise<never> {
  if (!isWellFormedText(workflowId)) {
    throw new AgentClientError('invalid_input', `invalid workflowId ${quoted(workflowId)}: it must be well-formed Unicode text (it has a lone surrogate)`);
  }
  if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  const latest = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch(() => undefined);
  if (!latest || latest.status.name === 'RUNNING') throw err;
  throw new RunIdTakenError(workflowId, latest.runId, latest.status.name.toLowerCase(), instead);
}
