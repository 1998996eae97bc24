import { ApplicationFailure, getClient } from '@temporalio/activity';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { describeIssues, sendMessageUpdate, type SessionRunRecord } from '../../contracts';
import { deliverScheduledMessageInputSchema } from '../../contracts/session-schedule';
import { failureMessage } from '../../contracts/safe-text';

/** Why a delivery cannot succeed however often it is retried; the firing fails with it. */
type DeliveryRefusal = 'session_not_found' | 'session_closed' | 'message_rejected';

function refused(message: string, type: DeliveryRefusal): ApplicationFailure {
  return ApplicationFailure.nonRetryable(failureMessage(message), type);
}

/** Whether the session has no open execution to take the update (never existed, or ended). */
function isGone(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || (err instanceof Error && /workflow execution already completed/i.test(err.message));
}

/**
 * Whether the server refused an update that no worker processed (it never entered the session's
 * history, so sending it again is safe). The refusal carries no failure type: its text is all there is.
 */
function isUnprocessedUpdate(err: WorkflowUpdateFailedError): boolean {
  return /wasn't processed by worker/i.test(err.cause?.message ?? '');
}

/** Whether the session workflow exists but has ended (a closed session), as opposed to never having existed. */
async function hasEnded(client: Client, sessionWorkflowId: string): Promise<boolean> {
  try {
    const { status } = await client.workflow.getHandle(sessionWorkflowId).describe();
    return status.name !== 'RUNNING';
  } catch {
    return false;
  }
}

/**
 * The delivery activity of a session's schedule (`session.deliverMessage`): sends the message into
 * the session through its `sendMessage` update, with the firing's id as `messageId`, and answers
 * the session's run record.
 *
 * @param client the Temporal client; default: the activity's worker client (`getClient()`).
 * @throws (the activity) ApplicationFailure, non-retryable, naming the session: `session_not_found`
 * (no such session), `session_closed` (closed, or closing after its queued runs),
 * `message_rejected` (the session refused the message); anything else (the session unreachable)
 * is retried by the deliverer's retry policy.
 */
export function createDeliverScheduledMessage(client: () => Client = getClient): (input: unknown) => Promise<SessionRunRecord> {
  return async (rawInput) => {
    const parsed = deliverScheduledMessageInputSchema().safeParse(rawInput);
    if (!parsed.success) throw ApplicationFailure.nonRetryable(`invalid scheduled message delivery: ${describeIssues(parsed.error)}`, 'invalid_input');
    const { sessionWorkflowId, scheduleId, messageId, message } = parsed.data;
    const payload = {
      content: message.content,
      ...(message.plannerOptions !== undefined ? { plannerOptions: message.plannerOptions } : {}),
      messageId,
      ...(message.whenBusy !== undefined ? { whenBusy: message.whenBusy } : {}),
    };
    const temporal = client();
    try {
      return await temporal.workflow.getHandle(sessionWorkflowId).executeUpdate(sendMessageUpdate, { args: [payload] });
    } catch (err) {
      const what = `schedule ${scheduleId} cannot post its message into session ${sessionWorkflowId}`;
      if (isGone(err)) {
        if (await hasEnded(temporal, sessionWorkflowId)) throw refused(`${what}: the session is closed (its workflow has ended)`, 'session_closed');
        throw refused(`${what}: no such session`, 'session_not_found');
      }
      // An update the session's worker could not take in its task (e.g. the session continued as
      // new under it) was not applied: sending it again is safe.
      if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && !isUnprocessedUpdate(err)) {
        const reason = err.cause.message;
        if (err.cause.type === 'session_closed') throw refused(`${what}: ${reason}`, 'session_closed');
        throw refused(`${what}: the session refused it: ${reason}`, 'message_rejected');
      }
      throw ApplicationFailure.retryable(failureMessage(`${what} now: ${err instanceof Error ? err.message : String(err)}`), 'session_unreachable');
    }
  };
}
