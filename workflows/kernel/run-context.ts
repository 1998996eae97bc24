import { inWorkflowContext, workflowInfo } from '@temporalio/workflow';

/**
 * The state of one workflow execution that lives outside its run objects: the patch baseline it
 * runs with, and what the bundle's internals interceptor needs to mark turn boundaries. Workflow
 * modules hold no mutable state of their own; they keep it here (docs/internals/module-state.md).
 */
export interface RunContext {
  /** The execution this context belongs to. */
  readonly runId: string;
  /** The patches in effect for the whole execution (undefined: none, each is asked). */
  baseline: ReadonlySet<string> | undefined;
  /** What the execution does of the work its baseline saves, decided with the baseline (see {@link BaselineWork}). */
  work: BaselineWork;
  /** Turn boundaries, see turn-boundaries.ts. */
  readonly boundaries: BoundaryState;
  /**
   * The run's event log, the newest seq announced to the worker, and the local activities of the
   * run in flight (while one is, the workflow task goes on: see event-announcements.ts).
   */
  readonly events: { log: { readonly lastSeq: number } | undefined; announcedSeq: number; localCallsInFlight: number };
}

/**
 * What an execution does of the work that changes riding on a release's baseline save: plain
 * values, decided once at its start from its baseline (`decidePatchBaseline` in
 * workflows/versioning/patches.ts), read where the paths part. Runs of older baselines keep the
 * old work for their whole life, and never record a marker for it.
 */
export interface BaselineWork {
  /** The run marks its first task as turn 0's boundary (a memo change); since `first-task-begins-run` the reader finds it unmarked. */
  readonly marksFirstTask: boolean;
  /** A planner's model calls log `model_usage` events (since `model-usage-events`). */
  readonly logsModelUsage: boolean;
  /** A sub-agent run starts with its parent's confirmation (since `sub-agents-inherit-confirmation`). */
  readonly childrenInheritConfirmation: boolean;
  /** A run or session with a tenant starts its sub-agent and session runs with it (`tenant-runs`). */
  readonly childrenTakeTenant: boolean;
  /** A run with `confirmation.notify` starts the approval notifier when a call waits (`approval-notices`). */
  readonly sendsApprovalNotices: boolean;
  /** A run with a tenant joins its tenant's account: admitted under its quotas, its usage in its ledger (`tenant-runs`). */
  readonly joinsTenantAccount: boolean;
}

/** The work of an execution without a baseline (none decided yet, or outside a workflow): the oldest code's. */
const workWithoutBaseline: BaselineWork = Object.freeze({ marksFirstTask: true, logsModelUsage: false, childrenInheritConfirmation: false, childrenTakeTenant: false, sendsApprovalNotices: false, joinsTenantAccount: false });

/** What turn-boundaries.ts keeps between an activation's code and its commands. */
export interface BoundaryState {
  /** Boundaries marked in the activation in progress that wait for its commands. */
  readonly pending: number[];
  /** Set when the bundle has the internals interceptor (see boundary-interceptors.ts). */
  concluderInstalled: boolean;
  /** The task (by its history length) whose first boundary is marked, once one is. */
  markedTask: number | undefined;
  /** A boundary its task marks by itself: turn 0, in a run's first task (`first-task-begins-run`). */
  taskBegun: number | undefined;
}

/**
 * The context of the execution in progress. The SDK evaluates the workflow modules for each
 * execution, so one context per module instance would do; keying it by run id keeps it per
 * execution even if this module were ever shared (preloaded) across executions.
 */
let current: RunContext | undefined;

/**
 * The context of the execution in progress, created on its first use in the execution. Outside
 * a workflow (unit tests of the pure parts) there is one context, under the run id `''`.
 */
export function runContext(): RunContext {
  const runId = inWorkflowContext() ? workflowInfo().runId : '';
  if (current?.runId !== runId) {
    current = {
      runId,
      baseline: undefined,
      work: workWithoutBaseline,
      boundaries: { pending: [], concluderInstalled: false, markedTask: undefined, taskBegun: undefined },
      events: { log: undefined, announcedSeq: 0, localCallsInFlight: 0 },
    };
  }
  return current;
}
