import type { JsonValue, RunPolicy, ToolDefinition } from '../contracts';
import type { AgentHooks } from './agent-hooks';
import type { Planner } from './planner';

/**
 * An agent as the workflow knows it: its tools, its planner and its default policy.
 * Definitions are code, bundled into the workflow, so every replay sees the same agent.
 */
export interface AgentDefinition {
  readonly name: string;
  readonly description: string;
  /** System instructions; the planner decides how to use them. */
  readonly instructions?: string;
  readonly tools: readonly ToolDefinition[];
  /** Builds the planner of one run from the run's `plannerOptions` (parse them with zod). */
  createPlanner(options: JsonValue | undefined): Planner;
  readonly policy?: Partial<RunPolicy>;
  /** Deterministic code run at intervention points (may pause, block or modify). */
  readonly hooks?: AgentHooks;
}

const agents = new Map<string, AgentDefinition>();

/**
 * Registers an agent definition for `agentRun`. Call at module load of the workflow bundle.
 *
 * @throws Error when an agent with the same name is already registered, or tool names repeat.
 */
export function registerAgent(definition: AgentDefinition): AgentDefinition {
  if (agents.has(definition.name)) throw new Error(`agent ${definition.name} is already registered`);
  const names = new Set<string>();
  for (const tool of definition.tools) {
    if (names.has(tool.name)) throw new Error(`agent ${definition.name}: duplicate tool ${tool.name}`);
    names.add(tool.name);
  }
  agents.set(definition.name, definition);
  return definition;
}

/** The registered agent with this name, if any. */
export function findAgent(name: string): AgentDefinition | undefined {
  return agents.get(name);
}

/** Names of all registered agents, sorted. */
export function agentNames(): string[] {
  return [...agents.keys()].sort();
}
