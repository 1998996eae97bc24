import { proxySinks, type Sinks } from '@temporalio/workflow';

/**
 * Sinks the bundle calls on the worker. Not recorded in history; the replay tooling registers
 * `unknownAgent` with `callDuringReplay`, so replaying a history whose agent is not in the
 * bundle says so instead of reporting a false nondeterminism.
 */
export interface DurableAgentsSinks extends Sinks {
  durableAgents: {
    unknownAgent(agent: string, known: string[]): void;
    /** The state a run would carry from this turn boundary (fork replay bundles only). */
    boundary(turn: number, carried: unknown): void;
    /** The run's event log grew to `lastSeq` in this activation (not called on replay). */
    eventsAppended(lastSeq: number): void;
  };
}

/** Name of the sink group, shared with the worker side. */
export const durableAgentsSinkName = 'durableAgents';

/** Tells the worker that a run asked for an agent this bundle does not have. */
export function reportUnknownAgent(agent: string, known: string[]): void {
  proxySinks<DurableAgentsSinks>().durableAgents.unknownAgent(agent.slice(0, 200), known);
}

/** Tells the worker that the run's event log grew, so it can wake the run's followers. */
export function announceEvents(lastSeq: number): void {
  proxySinks<DurableAgentsSinks>().durableAgents.eventsAppended(lastSeq);
}

/** Reports the state at a turn boundary to the fork tooling (called only in fork replay bundles). */
export function reportBoundary(turn: number, carried: unknown): void {
  proxySinks<DurableAgentsSinks>().durableAgents.boundary(turn, carried);
}
