import { proxySinks, type Sinks } from '@temporalio/workflow';

/**
 * Sinks the bundle calls on the worker. Not recorded in history; the replay tooling registers
 * `unknownAgent` with `callDuringReplay`, so replaying a history whose agent is not in the
 * bundle says so instead of reporting a false nondeterminism.
 */
export interface DurableAgentsSinks extends Sinks {
  durableAgents: {
    unknownAgent(agent: string, known: string[]): void;
  };
}

/** Name of the sink group, shared with the worker side. */
export const durableAgentsSinkName = 'durableAgents';

/** Tells the worker that a run asked for an agent this bundle does not have. */
export function reportUnknownAgent(agent: string, known: string[]): void {
  proxySinks<DurableAgentsSinks>().durableAgents.unknownAgent(agent.slice(0, 200), known);
}
