/** Implementations of the test agents' tools (worker side; see ./agents for the definitions). */
import { implementTool, type ToolImplementation } from 'durable-agents/worker';
import { shoutTool } from './faulty-agent';
import { MemorySideEffectSink, toolboxImplementations, type SideEffectSink } from '../../examples/toolbox/tools';
import { watchlistImplementations } from '../../examples/watchlist/tools';

/** Worker-side dependencies of the test agents' tools. */
export interface AgentToolDependencies {
  readonly sideEffects?: SideEffectSink;
}

/** Implementations of every tool of every test agent. */
export function allToolImplementations(deps: AgentToolDependencies = {}): ToolImplementation[] {
  return [
    ...toolboxImplementations(deps.sideEffects ?? new MemorySideEffectSink()),
    ...watchlistImplementations(),
    implementTool(shoutTool, ({ text }) => text.toUpperCase()),
  ];
}
