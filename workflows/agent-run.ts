import {
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  agentNameSearchAttribute,
  agentStatusSearchAttribute,
  describeIssues,
  runInputSchema,
  type RunInput,
  type RunResult,
} from '../contracts';
import { agentNames, findAgent } from './agent-registry';
import { AgentRunState } from './agent-run-state';
import { registerRunHandlers } from './run-handlers';

/**
 * One agent run as a durable workflow. Parses its input, registers the run's queries,
 * signals and updates, and delegates to {@link AgentRunState}.
 *
 * @throws ApplicationFailure `invalid_input` | `unknown_agent` | `planner_failed` | `invalid_plan`
 */
export async function agentRun(rawInput: RunInput): Promise<RunResult> {
  const parsed = runInputSchema.safeParse(rawInput);
  if (!parsed.success) {
    throw ApplicationFailure.nonRetryable(`invalid run input: ${describeIssues(parsed.error)}`, 'invalid_input');
  }
  const agent = findAgent(parsed.data.agent);
  if (!agent) {
    throw ApplicationFailure.nonRetryable(
      `unknown agent "${parsed.data.agent}"; registered agents: ${agentNames().join(', ') || '(none)'}`,
      'unknown_agent',
    );
  }
  const run = new AgentRunState(parsed.data, agent, CancellationScope.current());
  if (workflowInfo().typedSearchAttributes.get(agentNameSearchAttribute) !== undefined) {
    run.onStatusChange = (status) => upsertSearchAttributes([{ key: agentStatusSearchAttribute, value: status }]);
  }
  registerRunHandlers(run);
  try {
    return await run.execute();
  } finally {
    // Let update handlers (kill, pause, long polls) answer before the run closes; this must
    // work even when the run ended because Temporal cancelled it.
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  }
}
