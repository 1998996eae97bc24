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
  /** Turn boundaries, see turn-boundaries.ts. */
  readonly boundaries: BoundaryState;
  /** The run's event log and the newest seq announced to the worker (see event-announcements.ts). */
  readonly events: { log: { readonly lastSeq: number } | undefined; announcedSeq: number };
}

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
      boundaries: { pending: [], concluderInstalled: false, markedTask: undefined, taskBegun: undefined },
      events: { log: undefined, announcedSeq: 0 },
    };
  }
  return current;
}
