import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import { notifyApprovalActivityName, type ApprovalNotice, type ApprovalNoticeDelivery } from '../../contracts/approval-notice';

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

/**
 * Starts the notice of a call that waits for a decision, without waiting for it. A notice that
 * cannot be delivered (no notifier on the worker: the activity is not registered) is retried like
 * any other failure until a worker with one takes it, or the run ends.
 */
export function sendApprovalNotice(notice: Omit<ApprovalNotice, 'workflowId'>): void {
  const notify = proxyActivities<Record<string, NotifyActivity>>(noticeOptions)[notifyApprovalActivityName] as NotifyActivity;
  // Its end is nobody's business: it is retried without end, and a cancellation (with the call or
  // the run) means nothing waits for it any more. Its failed attempts are in the run's history.
  notify({ workflowId: workflowInfo().workflowId, ...notice }).catch(() => undefined);
}
