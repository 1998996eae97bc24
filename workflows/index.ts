/**
 * `durable-agents/workflow`: the sandbox-safe part of the library. Import it from your agent
 * definitions and your workflows module; everything reachable from here runs in Temporal's
 * deterministic workflow sandbox (no Node APIs, no I/O).
 *
 * @example
 * // src/workflows.ts — the module you give the worker as `workflowsPath`
 * import { createAgentWorkflows } from 'durable-agents/workflow';
 * import { notesAgent } from './agent';
 * export const { agentRun, agentSession, agentScheduledMessage, agentTenantAccount } = createAgentWorkflows({ agents: [notesAgent] });
 */
export { createAgentWorkflows, type AgentWorkflows, type AgentWorkflowsOptions } from './create-agent-workflows';
export { defineAgent, createAgentRegistry, type AgentDefinition, type AgentRegistry } from './agents/agent-registry';
export type { AgentHooks, HookAction, HookEvent } from './agents/agent-hooks';
export type { Planner, PlannerContext, PlanStartInput, PlanResumeInput, AgentState, ModelUsageReport } from './agents/planner';
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
export { builtOnce } from '../contracts/lazy';
export { mcpToolset, type McpToolsetDefinition, type McpToolsetOptions, type ToolsetApprovalPolicy, type ToolApproval } from '../contracts/mcp-toolset';
export type { ToolsetSnapshot, McpToolSpec } from '../contracts/mcp';
export type { ToolsetView } from './agents/toolsets';
export {
  defineTool,
  defineAgentTool,
  type AgentToolOptions,
  type SubAgentRun,
  type ToolDefinition,
  type ToolDefinitionOptions,
  type ToolRetryPolicy,
} from '../contracts/tool-definition';
export { toolActivityType } from '../contracts/tool-activity-type';
export type { JsonValue, JsonObject } from '../contracts/json';
export type { Message } from '../contracts/messages';
export type { PlanResult, FinalResponse, Await, AwaitItem } from '../contracts/plan';
export type { ToolCall, ToolRequest, ToolOutput, RetryHint } from '../contracts/tools';
export type { RunPolicy } from '../contracts/run';
export type { InterventionPoint } from '../contracts/points';
