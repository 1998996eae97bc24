import type { RunEvent } from '../contracts';
import type { AgentClient } from '../client/agent-client';
import { runInputFor, type RunShape } from './workload';

/** One finished run (of any system). */
export interface FinishedRun {
  readonly workflowId: string;
  /** Run id of the first execution; later ones follow from it when the run continued as new. */
  readonly firstRunId: string;
  /** Client wall clock from the start call to the result. */
  readonly wallMs: number;
  /** Workflow-clock start of each turn and end of the last, when the workflow returns them (the reference loop). */
  readonly turnStartsMs?: readonly number[];
}

/**
 * Starts a run of the shape and waits for its result.
 *
 * @throws Error when the run did not complete or did not run every turn.
 */
export async function runToCompletion(agents: AgentClient, shape: RunShape, workflowId: string, agent?: string): Promise<FinishedRun> {
  const started = performance.now();
  const { runId } = await agents.start(runInputFor(shape, agent), { workflowId });
  const result = await agents.result(workflowId);
  const wallMs = performance.now() - started;
  if (result.status !== 'completed' || result.iterations !== shape.turns) {
    throw new Error(`run ${workflowId} ended ${result.status} after ${result.iterations} of ${shape.turns} turns`);
  }
  return { workflowId, firstRunId: runId, wallMs };
}

/** Every event of a run's log, read page by page through the events query. */
export async function readAllEvents(agents: AgentClient, workflowId: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  let afterSeq = 0;
  for (;;) {
    const page = await agents.events(workflowId, afterSeq, 1000);
    if (page.events.length === 0) return events;
    events.push(...page.events);
    afterSeq = page.nextAfterSeq;
  }
}

/**
 * Durations of a run's turns from its event log: a turn spans from one `plan` event to the
 * next (workflow clock, millisecond resolution). T tool turns give T durations.
 */
export function turnDurationsMs(events: readonly RunEvent[]): number[] {
  const planTimes = events.filter((e) => e.type === 'plan').map((e) => Date.parse(e.at));
  return planTimes.slice(1).map((t, i) => t - (planTimes[i] ?? t));
}
