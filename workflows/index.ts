/**
 * `durable-agents/workflow`: the sandbox-safe part of the library. Import it from your agent
 * definitions and your workflows module; everything reachable from here runs in Temporal's
 * deterministic workflow sandbox (no Node APIs, no I/O).
 *
 * @example
 * // src/workflows.ts — the module you give the worker as `workflowsPath`
 * import { createAgentWorkflows } from 'durable-agents/workflow';
 * import { notesAgent } from './agent';
 * export const { agentRun, agentSession } = createAgentWorkflows({ agents: [notesAgent] });
 */
export { createAgentWorkflows, type AgentWorkflows, type AgentWorkflowsOptions } from './create-agent-workflows';
export { defineAgent, createAgentRegistry, type AgentDefinition, type AgentRegistry } from './agent-registry';
export type { AgentHooks, HookAction, HookEvent } from './agent-hooks';
export type { Planner, PlannerContext, PlanStartInput, PlanResumeInput, AgentState } from './planner';
export { createScriptedPlanner, scriptedPlannerOptionsSchema, scriptStepSchema, type ScriptStep, type ScriptedPlannerOptions } from './planners/scripted';
export {
  defineLlmAgent,
  isLlmAgent,
  createLlmPlanner,
  askClarificationTool,
  askMultipleChoiceTool,
  type LlmAgentDefinition,
  type LlmAgentOptions,
  type LlmPlannerConfig,
  type LlmRunOptions,
  type HumanToolsConfig,
  type OutputSchemaDefinition,
  type ModelActivityOptions,
  type ModelRequestSettings,
} from './planners/llm';
export { namespacedToolActivities } from './patches';
export {
  mcpToolset,
  type McpToolsetDefinition,
  type McpToolsetOptions,
  type ToolsetApprovalPolicy,
  type ToolApproval,
  type ToolsetSnapshot,
  type McpToolSpec,
} from '../contracts';
export type { ToolsetView } from './toolsets';
export {
  defineTool,
  defineAgentTool,
  type AgentToolOptions,
  type SubAgentRun,
  type ChildRun,
  toolActivityType,
  type ToolDefinition,
  type ToolDefinitionOptions,
  type ToolRetryPolicy,
  type JsonValue,
  type JsonObject,
  type Message,
  type InputMessage,
  type PlanResult,
  type FinalResponse,
  type Await,
  type AwaitItem,
  type ToolCall,
  type ToolRequest,
  type ToolOutput,
  type RetryHint,
  type RunInput,
  type RunResult,
  type RunPolicy,
  type RunStatus,
  type InterventionPoint,
} from '../contracts';
