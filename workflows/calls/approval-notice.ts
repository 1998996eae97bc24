import { CancellationScope, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { notifyApprovalActivityName, type ApprovalNotice, type ApprovalNoticeDelivery } from '../../contracts/approval-notice';
import type { RunEventDraft } from '../../contracts/events';
import { wellFormed } from '../../contracts/safe-text';

type NotifyActivity = (notice: ApprovalNotice) => Promise<ApprovalNoticeDelivery>;

/**
 * How a notice is retried: with backoff, without end, while the receiver is down or refuses it.
 * The run never waits for it: the call waits for its decision either way, and a notice still
 * being retried when the run ends (or continues as new) is dropped with it.
 */
const noticeOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
} as const;

/** Longest notifier name and key id an event takes from a delivery. */
const maxLabelChars = 200;

/**
 * The `approval_notified` event of a delivery, or undefined for an answer that is not one (a
 * notifier of another version): the activity's answer is checked like any payload. Pure.
 */
export function noticeDeliveredEvent(toolCallId: string, delivery: unknown): Extract<RunEventDraft, { type: 'approval_notified' }> | undefined {
  if (typeof delivery !== 'object' || delivery === null) return undefined;
  const { notifier, attempt, status, linkExpiresAt, keyId } = delivery as Partial<Record<keyof ApprovalNoticeDelivery, unknown>>;
  if (typeof notifier !== 'string' || !Number.isInteger(attempt) || (attempt as number) < 1 || !Number.isInteger(status)) return undefined;
  const label = (text: string) => wellFormed(text).slice(0, maxLabelChars);
  return {
    type: 'approval_notified',
    toolCallId,
    notifier: label(notifier),
    attempt: attempt as number,
    status: status as number,
    ...(typeof linkExpiresAt === 'string' ? { linkExpiresAt: label(linkExpiresAt) } : {}),
    ...(typeof keyId === 'string' ? { keyId: label(keyId) } : {}),
  };
}

/**
 * Starts the notice of a call that waits for a decision, without waiting for it, and answers how
 * to withdraw it. A notice that cannot be delivered (no notifier on the worker: the activity is
 * not registered) is retried like any other failure until a worker with one takes it, the call's
 * wait ends (the call was decided, or asked again: withdraw), or the run ends. A delivered notice
 * is `delivered`'s event; withdrawing one delivered already does nothing.
 */
export function sendApprovalNotice(notice: Omit<ApprovalNotice, 'workflowId'>, delivered: (event: Extract<RunEventDraft, { type: 'approval_notified' }>) => void): () => void {
  const notify = proxyActivities<Record<string, NotifyActivity>>(noticeOptions)[notifyApprovalActivityName] as NotifyActivity;
  const scope = new CancellationScope();
  scope
    .run(() => notify({ workflowId: workflowInfo().workflowId, ...notice }))
    .then(
      (delivery) => {
        const event = noticeDeliveredEvent(notice.toolCallId, delivery);
        if (event) delivered(event);
      },
      // Its failure is nobody's business: it is retried without end, and a cancellation (the call
      // was decided, the call or the run was cancelled) means nothing waits for it any more. Its
      // failed attempts are in the run's history.
      () => undefined,
    );
  return () => scope.cancel();
}
