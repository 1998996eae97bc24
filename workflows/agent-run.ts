import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import { describeIssues, eventsQuery, runInputSchema, statusQuery, type RunInput, type RunResult } from '../contracts';
import { agentNames, findAgent } from './agent-registry';
import { AgentRunState } from './agent-run-state';

/**
 * One agent run as a durable workflow. Parses its input, registers the run's queries and
 * delegates to {@link AgentRunState}.
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
  const run = new AgentRunState(parsed.data, agent);
  setHandler(statusQuery, () => run.statusReport());
  setHandler(eventsQuery, (args) => run.eventsPage(args));
  return run.execute();
}
