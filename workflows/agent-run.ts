import {
  CancellationScope,
  allHandlersFinished,
  condition,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  agentNameSearchAttribute,
  agentStatusSearchAttribute,
  carriedRunStateSchema,
  describeIssues,
  type CarriedRunState,
  type RunInput,
  type RunResult,
} from '../contracts';
import { parseRunInput } from '../contracts/fast-schemas';
import type { AgentRegistry } from './agent-registry';
import { reportUnknownAgent } from './bundle-sinks';
import type { Planner } from './planner';
import { registerRunHandlers } from './run-handlers';
import { RunLoop, type RunLoopOptions } from './run-loop';
import { logEpoch, RunState } from './run-state';
import { rejection } from './failures';
import { quoted } from '../contracts/safe-text';
import { countedRun } from './run-metrics';
import { decidePatchBaseline } from './patches';

/**
 * Builds the `agentRun` workflow of a bundle over its agents: one agent run as a durable
 * workflow. The workflow parses its input, registers the run's queries, signals and updates,
 * and delegates to {@link RunLoop} over a {@link RunState}. Long runs continue as new at a
 * turn boundary, carrying their state in `continued`.
 *
 * The workflow throws ApplicationFailure `invalid_input` | `unknown_agent` | `planner_failed` | `invalid_plan`.
 */
export function createAgentRun(registry: AgentRegistry, options: RunLoopOptions = {}): (input: RunInput) => Promise<RunResult> {
  return (rawInput) => countedRun(registry, rawInput, () => runAgent(registry, rawInput, options));
}

async function runAgent(registry: AgentRegistry, rawInput: RunInput, options: RunLoopOptions): Promise<RunResult> {
  // First, before any code can ask for a patch: one baseline marker, not one marker per patch.
  decidePatchBaseline();
  const parsed = parseRunInput(rawInput);
  if (!parsed.success) {
    throw rejection(`invalid run input: ${describeIssues(parsed.error)}`, 'invalid_input');
  }
  const agent = registry.find(parsed.data.agent);
  if (!agent) {
    const known = registry.names();
    reportUnknownAgent(parsed.data.agent, known);
    throw rejection(
      `agent ${quoted(parsed.data.agent, 80)} is not in this bundle; its agents: ${known.join(', ') || '(none)'}`,
      'unknown_agent',
    );
  }
  let carried: CarriedRunState | undefined;
  if (parsed.data.continued !== undefined) {
    const check = carriedRunStateSchema.safeParse(parsed.data.continued);
    if (!check.success) throw rejection(`invalid carried run state: ${describeIssues(check.error)}`, 'invalid_input');
    carried = check.data;
  }
  let planner: Planner;
  try {
    planner = agent.createPlanner(parsed.data.plannerOptions);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw rejection(`invalid planner options for agent ${agent.name}: ${message}`, 'invalid_input');
  }
  const state = new RunState(parsed.data, agent, carried, logEpoch);
  if (workflowInfo().typedSearchAttributes.get(agentNameSearchAttribute) !== undefined) {
    state.onStatusChange = (status) => upsertSearchAttributes([{ key: agentStatusSearchAttribute, value: status }]);
  }
  const loop = new RunLoop(state, planner, CancellationScope.current(), options);
  registerRunHandlers(loop);
  try {
    return await loop.execute();
  } finally {
    // Let update handlers (kill, pause, long polls) answer before the run closes; this must
    // work even when the run ended because Temporal cancelled it. Checked first: with no handler
    // running, no other code can emit a command before the run closes, and the wait would only
    // cost a scope's and a condition's promises.
    if (!allHandlersFinished()) await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  }
}
