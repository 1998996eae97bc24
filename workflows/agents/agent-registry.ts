import type { JsonValue } from '../../contracts/json';
import type { McpToolsetDefinition } from '../../contracts/mcp-toolset';
import type { RunPolicy } from '../../contracts/run';
import type { ToolDefinition } from '../../contracts/tool-definition';
import type { AgentHooks } from './agent-hooks';
import type { Planner } from './planner';
import { quoted } from '../../contracts/safe-text';

/**
 * An agent as the workflow knows it: its tools, its planner and its default policy.
 * Definitions are code, bundled into the workflow, so every replay sees the same agent.
 */
export interface AgentDefinition {
  /** Unique within a bundle; part of every tool activity type (`<agent>/<tool>`), so keep it stable. */
  readonly name: string;
  readonly description: string;
  /** System instructions; the planner decides how to use them. `{key}` renders from session state. */
  readonly instructions?: string;
  readonly tools: readonly ToolDefinition[];
  /**
   * Groups of tools from MCP servers (see `mcpToolset`), beside the local `tools`. A run fetches
   * their lists when it first needs them and keeps them as versioned snapshots.
   */
  readonly toolsets?: readonly McpToolsetDefinition[];
  /** Builds the planner of one run from the run's `plannerOptions` (parse them with zod). */
  createPlanner(options: JsonValue | undefined): Planner;
  readonly policy?: Partial<RunPolicy>;
  /** Deterministic code run at intervention points (may pause, block or modify). */
  readonly hooks?: AgentHooks;
}

/** Letters, digits, `_` and `-`; no `/` or `.`, so `<agent>/<tool>` activity types stay unambiguous. */
const agentNamePattern = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/**
 * Declares an agent. Safe to import from workflow code; pass it to `createAgentWorkflows`
 * (workflow side) and to the worker (`createAgentWorker({ agents })`).
 *
 * @throws Error when the name is not an identifier, two tools share a name or two toolsets do.
 * @example
 * declare const addNote: ToolDefinition; // defineTool({ name: 'add_note', … })
 * export const notesAgent = defineAgent({
 *   name: 'notes', description: 'Keeps notes', tools: [addNote],
 *   createPlanner: createScriptedPlanner,
 * });
 */
export function defineAgent<A extends AgentDefinition>(definition: A): A {
  if (!agentNamePattern.test(definition.name)) {
    throw new Error(`defineAgent: invalid agent name ${quoted(definition.name, 80)}; use letters, digits, _ and - (max 64)`);
  }
  const names = new Set<string>();
  for (const tool of definition.tools) {
    if (names.has(tool.name)) throw new Error(`agent ${definition.name}: duplicate tool ${tool.name}`);
    names.add(tool.name);
  }
  const toolsets = new Set<string>();
  for (const toolset of definition.toolsets ?? []) {
    if (toolset?.kind !== 'mcp') throw new Error(`agent ${definition.name}: toolsets takes mcpToolset(...) values`);
    if (toolsets.has(toolset.name)) throw new Error(`agent ${definition.name}: two toolsets are named ${toolset.name}; give one a name`);
    toolsets.add(toolset.name);
  }
  return definition;
}

/** The agents of one workflow bundle, looked up by name. Immutable once built. */
export interface AgentRegistry {
  find(name: string): AgentDefinition | undefined;
  /** Names of all agents, sorted. */
  names(): string[];
}

/**
 * Builds the registry of a bundle from agent values (no global state: two bundles with
 * different agents coexist in one worker process).
 *
 * @throws Error when two agents share a name or an agent is invalid.
 */
export function createAgentRegistry(agents: readonly AgentDefinition[]): AgentRegistry {
  const byName = new Map<string, AgentDefinition>();
  for (const agent of agents) {
    defineAgent(agent);
    if (byName.has(agent.name)) throw new Error(`two agents are named ${agent.name}`);
    byName.set(agent.name, agent);
  }
  const sorted = [...byName.keys()].sort();
  return { find: (name) => byName.get(name), names: () => [...sorted] };
}
