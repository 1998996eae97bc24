import type { Client } from '@temporalio/client';
import { isWellFormedText, quoted } from '../contracts/safe-text';
import { refuseTakenId } from '../history/id-reuse';
import { AgentClientError } from './errors';

/**
 * What {@link AgentClient.start} throws for a start Temporal refused with `err`: `invalid_input`
 * naming an id it could not take because it is not well-formed text (the SDK says only "Failed to
 * start Workflow"); RunIdTakenError when a closed run holds the id; anything else as it came.
 */
export async function startRefusal(client: Client, workflowId: string, err: unknown): Promise<never> {
  if (!isWellFormedText(workflowId)) {
    throw new AgentClientError('invalid_input', `invalid workflowId ${quoted(workflowId)}: it must be well-formed Unicode text (it has a lone surrogate)`);
  }
  return refuseTakenId(client, workflowId, err);
}
