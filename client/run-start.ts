import { agentRunStartAttributes, agentRunWorkflowType, describeIssues, runInputSchema, type RunInput } from '../contracts';
import { tenantPriorityOption } from '../contracts/tenant-priority';
import { idReusePolicy } from '../history/id-reuse';
import { AgentClientError } from './errors';
import { fits, refuseNestedTooDeep } from './input-checks';
import type { RunCalls } from './run-calls';
import { requireWorkerForStart, type StartOptions } from './start-needs-worker';
import { startRefusal } from './start-refusal';
import { refuseUnregisteredTenant } from './tenant-refusal';

/** Starts a run on the client's task queue, as {@link AgentClient.start} says. */
export async function startRun(calls: RunCalls, input: RunInput, options: StartOptions): Promise<{ workflowId: string; runId: string }> {
  refuseNestedTooDeep('run input', input);
  const parsed = runInputSchema.safeParse(input);
  if (!parsed.success) throw new AgentClientError('invalid_input', `invalid run input: ${describeIssues(parsed.error)}`);
  fits('the run input', input);
  if (!options.allowNoWorker) await requireWorkerForStart(calls.client, calls.taskQueue, calls.startable);
  const workflowId = options.workflowId ?? `run-${parsed.data.agent}-${Math.random().toString(36).slice(2, 10)}`;
  const handle = await calls.client.workflow
    .start(agentRunWorkflowType, {
      taskQueue: calls.taskQueue,
      workflowId,
      args: [input],
      ...agentRunStartAttributes(parsed.data, calls.searchAttributes),
      // Its activities and sub-agent runs inherit it on the server.
      ...tenantPriorityOption(calls.tenants, parsed.data.tenant),
      ...idReusePolicy(options.reuseClosedId),
    })
    .catch((err: unknown) => {
      refuseUnregisteredTenant(err, parsed.data.tenant, calls.client.options.namespace);
      return startRefusal(calls.client, workflowId, err);
    });
  return { workflowId, runId: handle.firstExecutionRunId };
}
