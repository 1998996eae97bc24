import { bundleWorkflowCode, Worker, type InjectedSinks, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { Priority } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { fetchDecodedHistory } from '../history/decoded-history';
import { boundaryTaskEvents, CheckpointError, checkpointAt, correctionsAfterBoundary, type Checkpoint } from '../history/checkpoints';
import { agentRunStartAttributes, agentRunWorkflowType, carriedRunStateSchema, continuationInput, describeIssues, payloadTooLarge, runInputSchema, type CarriedRunState, type Intervention, type RunInput } from '../contracts';
import { durableAgentsSinkName, type DurableAgentsSinks } from '../workflows/bundle/bundle-sinks';
import { idReusePolicy, refuseTakenId } from '../history/id-reuse';
import { refuseOutsideSupportWindow } from './replay';
import { quietBundlerLogger } from './create-worker';
import { configureAgentBundler } from './plugin';
import { workflowSourceModule } from './workflow-sources';


/**
 * A bundle of the user's workflows module that reports the state at each turn boundary when it
 * replays a history (the module `workflows/run/fork-capture` swapped for `fork-capture-on`). Only
 * for {@link stateAtTurn}; workers never run it.
 */
export function bundleForkCapture(workflowsPath: string): Promise<WorkflowBundleWithSourceMap> {
  const flag = workflowSourceModule('run/fork-capture-on');
  return bundleWorkflowCode(configureAgentBundler({ workflowsPath, logger: quietBundlerLogger }, { './fork-capture': flag }));
}

/**
 * The state a run carried at the boundary after `turn` completed turns: its history up to that
 * boundary replayed with a {@link bundleForkCapture} bundle.
 *
 * @throws OutsideSupportWindowError (from {@link refuseOutsideSupportWindow}) when the run was recorded before this version's support window.
 * @throws Error when the replay never reached that boundary.
 */
export async function stateAtTurn(history: temporal.api.history.v1.IHistory, turn: number, bundle: WorkflowBundleWithSourceMap): Promise<CarriedRunState> {
  let captured: unknown;
  const sinks: InjectedSinks<DurableAgentsSinks> = {
    [durableAgentsSinkName]: {
      unknownAgent: { fn: () => undefined },
      boundary: {
        fn: (_info, at, carried) => {
          if (at === turn) captured = carried;
        },
        callDuringReplay: true,
      },
      eventsAppended: { fn: () => undefined },
    },
  };
  refuseOutsideSupportWindow(history);
  await Worker.runReplayHistory({ workflowBundle: bundle, sinks, replayName: 'fork' }, history);
  if (captured === undefined) throw new Error(`the replay did not reach the boundary after turn ${turn}`);
  const parsed = carriedRunStateSchema.safeParse(captured);
  if (!parsed.success) throw new Error(`the state at turn ${turn} is not a carried run state: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/** Options of {@link forkRun}. */
export interface ForkOptions {
  /** Turns to keep: the fork starts at the boundary after this many completed turns. */
  readonly toTurn: number;
  /** The fork's workflow id. Default: `<workflowId>-fork-<random>`. */
  readonly workflowId?: string;
  /** The workflows module the run's workers use (the fork replays the run's history with it). */
  readonly workflowsPath?: string;
  /** A bundle from {@link bundleForkCapture} instead of `workflowsPath`. */
  readonly workflowBundle?: WorkflowBundleWithSourceMap;
  /** Corrections applied in the fork at their safe points (edits and drops of upcoming calls included). */
  readonly with?: readonly Intervention[];
  /** Execution to fork (default: the latest). */
  readonly runId?: string;
  /** Task queue of the fork. Default: the original run's. */
  readonly taskQueue?: string;
  /**
   * Whose run the fork is: the tenant its work is charged to (its quotas admit it, its ledger
   * counts its model calls). Default: the tenant of the run it forks.
   */
  readonly tenant?: string;
}

/**
 * The dispatch of a fork: the run's (tier, fairness key and weight) when the fork is the run's
 * tenant's; a fork charged to another tenant is that tenant's fairness key, at the run's tier and
 * the default weight (the tenant's own weight is in the tenants file of the client that starts it).
 */
function forkPriority(description: WorkflowExecutionDescription, runTenant: string | undefined, forkTenant: string | undefined): { priority?: Priority } {
  if (!description.raw.workflowExecutionInfo?.priority) return forkTenant !== undefined && forkTenant !== runTenant ? { priority: { fairnessKey: forkTenant } } : {};
  if (forkTenant === undefined || forkTenant === runTenant) return { priority: description.priority };
  return { priority: { ...(description.priority?.priorityKey !== undefined ? { priorityKey: description.priority.priorityKey } : {}), fairnessKey: forkTenant } };
}

/**
 * Forks a run to a new workflow id at a turn boundary: the fork starts from the state the run
 * had there (conversation, tool outputs, planner and session state, budgets used, control) and
 * goes on from turn N+1, while the original run stays as it is. Nothing before the boundary runs
 * again. Corrections are part of the fork's starting state, so an edit or drop of a call the
 * fork plans next applies exactly, on open and closed runs alike.
 *
 * @throws CheckpointError `no_such_turn` or `invalid_input`; RunIdTakenError (`already_exists`)
 *   when `workflowId` is a closed run's id (the fork would take it over).
 */
export async function forkRun(client: Client, workflowId: string, options: ForkOptions): Promise<{ workflowId: string; runId: string; checkpoint: Checkpoint }> {
  const corrections = correctionsAfterBoundary(options.with);
  if (!options.workflowBundle && !options.workflowsPath) throw new CheckpointError('invalid_input', 'forkRun needs workflowsPath (the workflows module of the run) or workflowBundle');
  if (options.toTurn < 1) {
    throw new CheckpointError('invalid_input', `a fork keeps at least one turn (--to-turn 1 or more); a fork at turn 0 is a new run with the same input: start one`);
  }
  const description = await client.workflow.getHandle(workflowId, options.runId).describe();
  // Decoded by the client's codecs (payload encryption): the fork's replay then needs none.
  const history = await fetchDecodedHistory(client, workflowId, description.runId);
  const events = history.events ?? [];
  const checkpoint = checkpointAt(events, workflowId, options.toTurn);
  const started = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  if (!started) throw new CheckpointError('invalid_input', `run ${workflowId} has no start input in its history`);
  const input = client.options.loadedDataConverter.payloadConverter.fromPayload<RunInput>(started as never);

  const bundle = options.workflowBundle ?? (await bundleForkCapture(options.workflowsPath ?? ''));
  // With the rest of the boundary's task: a turn that began on a resume is reached only with it.
  const upToBoundary = { ...history, events: [...events.filter((e) => Number(e.eventId) <= checkpoint.eventId), ...boundaryTaskEvents(events, checkpoint)] };
  const carried = await stateAtTurn(upToBoundary, options.toTurn, bundle);
  // The fork has its own log epoch (its run id) and applies the corrections as queued ones.
  delete carried.logEpoch;
  // Budgets count work, not downtime: the time since the boundary is not the fork's.
  carried.idleMs += Math.max(0, Date.now() - Date.parse(checkpoint.time));
  let nextId = carried.control.nextInterventionId;
  carried.control.queued.push(...corrections.map((intervention) => ({ id: nextId++, intervention: intervention as CarriedRunState['control']['queued'][number]['intervention'] })));
  carried.control.nextInterventionId = nextId;

  const forkId = options.workflowId ?? `${workflowId}-fork-${Math.random().toString(36).slice(2, 8)}`;
  const continued = continuationInput(input, carried, `forked from ${workflowId} at turn ${options.toTurn}; the conversation continues in the carried state`);
  const forkInput = options.tenant !== undefined ? { ...continued, tenant: options.tenant } : continued;
  const parsed = runInputSchema.safeParse(forkInput);
  if (!parsed.success) throw new CheckpointError('invalid_input', `invalid fork input: ${describeIssues(parsed.error)}`);
  const tooLarge = payloadTooLarge('the fork input', forkInput);
  if (tooLarge) throw new CheckpointError('invalid_input', tooLarge);
  // Started as AgentClient.start starts a run (search attribute, memo and priority), without the client;
  // never under a closed run's id, which the fork would take over (the run it forks, say).
  const handle = await client.workflow
    .start(agentRunWorkflowType, {
      taskQueue: options.taskQueue ?? description.taskQueue,
      workflowId: forkId,
      args: [forkInput],
      ...agentRunStartAttributes(forkInput),
      ...forkPriority(description, input.tenant, options.tenant),
      ...idReusePolicy(false),
    })
    .catch((err: unknown) => refuseTakenId(client, forkId, err, `a fork takes a workflow id no run has: give another, or none (${workflowId}-fork-<random>)`));
  return { workflowId: forkId, runId: handle.firstExecutionRunId, checkpoint };
}
