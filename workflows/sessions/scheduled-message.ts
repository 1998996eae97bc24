import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import { describeIssues } from '../../contracts/json';
import type { SessionRunRecord } from '../../contracts/session';
import {
  deliverScheduledMessageActivityName,
  scheduledMessageInputSchema,
  type DeliverScheduledMessageInput,
  type ScheduledMessageInput,
} from '../../contracts/session-schedule';
import { rejection } from '../kernel/failures';

type DeliverActivity = (input: DeliverScheduledMessageInput) => Promise<SessionRunRecord>;

/**
 * How the delivery is retried: with backoff, without end, while the session cannot be reached
 * (its workers down, the server busy). The activity fails non-retryably when the session is
 * closed, does not exist or refuses the message, which ends the firing.
 */
const deliveryOptions = {
  // An update the session takes in one workflow task; a worker lost mid-call is retried after this.
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
} as const;

/**
 * One firing of a session's schedule (workflow type `agentScheduledMessage`, started by the
 * schedule's action on the session's task queue): sends the schedule's message into the session
 * through its `sendMessage` update, with the firing's own id ({@link firingMessageId}) as
 * the message's `messageId`, so that a session that remembers message ids takes each firing once however often
 * the delivery is retried. Answers the run record the session answered.
 *
 * @throws ApplicationFailure `invalid_input` when the input does not parse; the activity's failure
 * (naming the session) when the session is closed, missing or refuses the message.
 */
export async function agentScheduledMessage(rawInput: ScheduledMessageInput): Promise<SessionRunRecord> {
  const parsed = scheduledMessageInputSchema().safeParse(rawInput);
  if (!parsed.success) throw rejection(`invalid scheduled message input: ${describeIssues(parsed.error)}`, 'invalid_input');
  const { sessionWorkflowId, scheduleId, message } = parsed.data;
  const deliver = proxyActivities<Record<string, DeliverActivity>>(deliveryOptions)[deliverScheduledMessageActivityName] as DeliverActivity;
  // Temporal names a firing's workflow by its schedule and the second it fired in: two firings in
  // one second (a trigger beside a due firing) share it. Their first run ids tell them apart, and
  // stay the same across the deliverer's retries.
  const { workflowId, firstExecutionRunId } = workflowInfo();
  return deliver({ sessionWorkflowId, scheduleId, messageId: firingMessageId(scheduleId, workflowId, firstExecutionRunId), message });
}

/**
 * A firing's message id, unique within its session and at most 124 characters (a message id
 * takes 128): `s:<schedule name>:<the second it fired>:<its first run id>`. The workflow id names
 * the session too, which the message does not need and which could make it too long.
 */
export function firingMessageId(scheduleId: string, workflowId: string, firstRunId: string): string {
  const name = scheduleId.slice(scheduleId.lastIndexOf('/schedule-') + '/schedule-'.length);
  const fired = workflowId.startsWith(`${scheduleId}-`) ? workflowId.slice(scheduleId.length + 1) : workflowId.slice(-20);
  return `s:${name}:${fired}:${firstRunId}`;
}
