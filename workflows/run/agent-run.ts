import {
  CancellationScope,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { agentNameSearchAttribute, agentStatusSearchAttribute } from '../../contracts/search-attributes';
import { carriedRunStateSchema, type CarriedRunState } from '../../contracts/carried-state';
import { describeIssues } from '../../contracts/json';
import type { RunInput, RunResult } from '../../contracts/run';
import { parseRunInput } from '../../contracts/fast-schemas';
import type { AgentRegistry } from '../agents/agent-registry';
import { reportUnknownAgent } from '../bundle/bundle-sinks';
import type { Planner } from '../agents/planner';
import { restoreCarriedWaits } from '../human/carried-waits';
import { registerRunHandlers } from './run-handlers';
import { RunLoop, type RunLoopOptions } from './run-loop';
import { logEpoch, RunState } from '../state/run-state';
import { tellParentOfWaits } from './people-waits';
import { rejection } from '../kernel/failures';
import { quoted } from '../../contracts/safe-text';
import { countRun } from './run-metrics';
import { decideRunBaseline } from '../versioning/patches';
import { refuseInputNestedTooDeep } from './input-depth';
import { tenantAdmissionOf, type TenantAdmission } from './tenant-admission';

/**
 * Builds the `agentRun` workflow of a bundle over its agents: one agent run as a durable
 * workflow. The workflow parses its input, registers the run's queries, signals and updates,
 * and delegates to {@link RunLoop} over a {@link RunState}. Long runs continue as new at a
 * turn boundary, carrying their state in `continued`.
 *
 * The workflow throws ApplicationFailure `invalid_input` | `unknown_agent` | `planner_failed` | `invalid_plan`.
 * On replay of a run recorded before the support window, its workflow task fails with
 * OutsideSupportWindowError (see patches.ts, {@link decideRunBaseline}).
 */
export function createAgentRun(registry: AgentRegistry, options: RunLoopOptions = {}): (input: RunInput) => Promise<RunResult> {
  return (rawInput) => {
    // First, before any code can ask for a patch: one baseline marker, not one marker per patch.
    // A run recorded before the support window has none and is refused here, before it diverges.
    decideRunBaseline();
    return runAgent(registry, rawInput, options);
  };
}

/**
 * One run, counted in its metrics, in one async step: the loop's promise is awaited here, and a
 * failure goes to the loop's {@link RunLoop.afterFailure}.
 */
async function runAgent(registry: AgentRegistry, rawInput: RunInput, options: RunLoopOptions): Promise<RunResult> {
  const ended = countRun(registry, rawInput);
  let result: RunResult;
  let continued = false;
  let admission: TenantAdmission | undefined;
  try {
    const loop = prepareRun(registry, rawInput, options);
    admission = tenantAdmissionOf(loop.state);
    try {
      result = await loop.start(admission && (() => admission!.admit((type, message) => loop.fail(type, message))));
    } catch (err) {
      continued = err instanceof ContinueAsNew;
      result = await loop.afterFailure(err);
    } finally {
      const answered = allHandlersAnswered();
      if (answered) await answered;
      // A run that continues as new keeps its place in its tenant's account.
      if (!continued) await admission?.leave();
    }
  } catch (error) {
    ended({ error });
    throw error;
  }
  ended({ result });
  return result;
}

/**
 * Lets update handlers (kill, pause, long polls) answer before the run closes; this must work
 * even when the run ended because Temporal cancelled it. Checked first: with no handler
 * running, no other code can emit a command before the run closes, and the wait would only cost
 * a scope's and a condition's promises.
 */
function allHandlersAnswered(): Promise<void> | undefined {
  return allHandlersFinished() ? undefined : CancellationScope.nonCancellable(() => condition(allHandlersFinished));
}

/**
 * Parses the run's input and sets the run up: its agent, its planner, its state and loop, and
 * the run's queries, signals and updates. Throws the run's `invalid_input` and `unknown_agent`
 * failures.
 */
function prepareRun(registry: AgentRegistry, rawInput: RunInput, options: RunLoopOptions): RunLoop {
  // Before the schemas. Carried state (`continued`) has the wider bound: only the runtime writes it.
  refuseInputNestedTooDeep('run', rawInput, (field) => field !== 'continued');
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
    const check = carriedRunStateSchema().safeParse(parsed.data.continued);
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
  // Before the handlers: a human input delivered as its handler is set finds what it is for.
  restoreCarriedWaits(state, carried?.openTurn);
  const { parent } = parsed.data;
  // A fork of a sub-agent run keeps the input's parent, but is no child of it.
  if (parent && workflowInfo().parent?.workflowId === parent.workflowId) state.onIdleChange = tellParentOfWaits(state, parent, workflowInfo().workflowId);
  const loop = new RunLoop(state, planner, CancellationScope.current(), options);
  registerRunHandlers(loop);
  return loop;
}
