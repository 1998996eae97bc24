/**
 * The worker's view of the agent catalogue: the same definitions the workflow bundle
 * registers, imported here so this Node process registers them too.
 */
import '../../agents/definitions';
import { findAgent, type AgentDefinition } from '../../workflows/agent-registry';

/** The registered agent of this name, from the bundled catalogue. */
export function findBundledAgent(name: string): AgentDefinition | undefined {
  return findAgent(name);
}
