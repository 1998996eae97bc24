import type { ToolImplementation } from '../activities';
import { MemorySideEffectSink, toolboxImplementations, type SideEffectSink } from './toolbox/implementation';
import { watchlistImplementations } from './watchlist/implementation';

/** Worker-side dependencies of the bundled agents' tools. */
export interface AgentToolDependencies {
  readonly sideEffects?: SideEffectSink;
}

/** Implementations of every tool of every bundled agent, for a worker. */
export function allToolImplementations(deps: AgentToolDependencies = {}): ToolImplementation[] {
  return [...toolboxImplementations(deps.sideEffects ?? new MemorySideEffectSink()), ...watchlistImplementations()];
}
