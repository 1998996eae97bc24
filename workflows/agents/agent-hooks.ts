import type { FinalResponse } from '../../contracts/plan';
import type { InterventionPoint } from '../../contracts/control';
import type { JsonValue } from '../../contracts/json';
import type { Message } from '../../contracts/messages';
import type { ToolOutput, ToolRequest } from '../../contracts/tools';

/** What an agent hook sees at its point. */
export type HookEvent =
  | { point: 'before_llm' | 'task_boundary'; turn: number; messages: readonly Message[] }
  | { point: 'after_llm'; turn: number; calls: readonly ToolRequest[] }
  | { point: 'before_tool'; turn: number; call: ToolRequest }
  | { point: 'after_tool'; turn: number; outputs: readonly ToolOutput[] }
  | { point: 'before_commit'; turn: number; response: FinalResponse };

/** What a hook may do. Actions that do not fit the point are ignored and logged. */
export type HookAction =
  | { type: 'pause'; reason: string }
  /** before_tool: refuse the call; the planner sees the reason. */
  | { type: 'block'; reason: string }
  /** before_tool: run the call with these arguments instead (validated against the schema). */
  | { type: 'edit_args'; args: JsonValue }
  /** before_llm / task_boundary: append a message before the next planner turn. */
  | { type: 'inject_message'; role: 'user' | 'system'; content: string }
  /** before_commit: commit this response instead. */
  | { type: 'replace_response'; response: FinalResponse };

/**
 * Deterministic code an agent runs at intervention points. Hooks run inside the workflow,
 * so they must not do I/O; they see the same inputs on every replay.
 */
export type AgentHooks = { readonly [P in InterventionPoint]?: (event: Extract<HookEvent, { point: P }>) => HookAction | undefined };
