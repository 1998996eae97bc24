import { WithStartWorkflowOperation } from '@temporalio/client';
import { agentSessionWorkflowType, describeIssues, sendMessageUpdate, sessionInputSchema, type SessionInput, type SessionMessage, type SessionRunRecord } from '../contracts';
import { tenantPriorityOption } from '../contracts/tenant-priority';
import { startSearchAttributes } from '../contracts/search-attributes';
import { AgentClientError } from './errors';
import { clientErrorKind } from './error-table';
import { fits, refuseNestedTooDeep } from './input-checks';
import type { RunCalls } from './run-calls';
import { requireWorkerForStart } from './start-needs-worker';
import { sendUntilProcessed } from './unprocessed-update';
import { refuseUnregisteredTenant } from './tenant-refusal';

/**
 * Checks a session's input as `open` does.
 *
 * @throws AgentClientError `invalid_input` naming the bad field.
 */
export function checkSessionInput(input: SessionInput): void {
  refuseNestedTooDeep('session input', input);
  const parsed = sessionInputSchema.safeParse(input);
  if (!parsed.success) throw new AgentClientError('invalid_input', `invalid session input: ${describeIssues(parsed.error)}`);
  fits('the session input', input);
}

/** How the client starts a session's workflow: its type, queue, input, memo and search attributes. */
export function sessionStart(calls: RunCalls, workflowId: string, input: SessionInput) {
  return {
    taskQueue: calls.taskQueue,
    workflowId,
    args: [input] as [SessionInput],
    memo: { agent: input.agent, ...(input.tenant ? { tenant: input.tenant } : {}) },
    // The session's runs take AgentName (and AgentTenant) from it (workflows/calls/child-run-labels.ts).
    ...(calls.searchAttributes ? { typedSearchAttributes: startSearchAttributes(input) } : {}),
    // The session's runs (its child workflows) and their activities inherit it on the server.
    ...tenantPriorityOption(calls.tenants, input.tenant),
  };
}

/**
 * Sends a message to a session, opening it with `input` first when it is not open, in one call
 * (Temporal's update-with-start): a chat backend keyed by its own thread id needs no lookup, and
 * two senders that both find the session missing open it once and both messages are taken. The
 * message carries the agent it expects, so an open session of another agent refuses it.
 *
 * @throws NoWorkerError when no worker polls the client's task queue (nothing is started or sent).
 * @throws AgentClientError `invalid_input` for a bad input; `rejected` when the session refuses the message.
 */
export async function sendOpening(calls: RunCalls, workflowId: string, message: SessionMessage, input: SessionInput): Promise<SessionRunRecord> {
  checkSessionInput(input);
  const payload = fits('the sendMessage update', { ...message, agent: input.agent });
  await requireWorkerForStart(calls.client, calls.taskQueue, calls.startable);
  const send = () =>
    calls.client.workflow.executeUpdateWithStart(sendMessageUpdate, {
      args: [payload],
      // One per try: an operation is used once. A closed session is not opened again behind the
      // sender's back (with its state and history gone): open() does that on purpose.
      startWorkflowOperation: new WithStartWorkflowOperation(agentSessionWorkflowType, {
        ...sessionStart(calls, workflowId, input),
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    });
  try {
    return await calls.guard(workflowId, () => sendUntilProcessed(send));
  } catch (err) {
    refuseUnregisteredTenant(err, input.tenant, calls.client.options.namespace);
    if (clientErrorKind(err) !== 'already_started') throw err;
    throw new AgentClientError('run_ended', `session ${workflowId} is closed: it takes no more messages (open() opens a new session under its id)`);
  }
}
