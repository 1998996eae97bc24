import { CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { RunResult } from '../../contracts';
import type { AgentClient } from '../../client/agent-client';
import { quoted } from '../../contracts/safe-text';
import { ApiError } from '../errors';

/** Longest part of the run's own reason in the answer: the rest of the message must fit the API's 1,000 characters. */
const maxReasonChars = 600;

/** How a run that has no result ended, in words. */
function howItEnded(err: WorkflowFailedError): string {
  if (err.cause instanceof TerminatedFailure) return 'was terminated';
  if (err.cause instanceof TimeoutFailure) return 'timed out';
  if (err.cause instanceof CancelledFailure) return 'was cancelled';
  return 'failed';
}

/**
 * The result of a run (of `runId`, or its latest execution), waiting for it to end. A run that
 * ended without one (a bug in agent code, an agent the worker lacks, Temporal's terminate) is a
 * normal answer of the API, not a failure of the server: 409 `run_failed` with how it ended, its
 * reason and where its history is.
 *
 * @throws ApiError `run_failed`.
 */
export async function runResultOrWhyNot(agents: AgentClient, workflowId: string, runId?: string): Promise<RunResult> {
  try {
    return await agents.result(workflowId, runId);
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const id = quoted(workflowId, 100);
    const history = `/api/runs/${encodeURIComponent(workflowId).slice(0, 100)}/history${runId !== undefined ? `?runId=${runId}` : ''}`;
    const reason = err.cause?.message ?? err.message;
    const cut = reason.length > maxReasonChars ? `${reason.slice(0, maxReasonChars)}… (${reason.length - maxReasonChars} more characters)` : reason;
    throw new ApiError('run_failed', `run ${id} ${howItEnded(err)}: ${cut} (its history: GET ${history})`);
  }
}
