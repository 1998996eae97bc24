/** The contracts as zod schemas (outside workflows; see schemas.ts). */
export * from './schemas';
export { isPlainJson, jsonByteLength, describeIssues, sessionStateMaxBytes, type JsonValue, type JsonObject } from './json';
export { maxPayloadBytes, warnPayloadBytes, payloadTooLarge } from './payload-limit';
export {
  type EarlyToolCall,
  type WrittenOutput,
  type DependencyOutput,
  type RetryReason,
  type RetryHint,
  type ToolErrorType,
  type ToolError,
  type ToolTelemetry,
  type ToolCall,
  type ToolRequest,
  type ToolOutput,
  type ToolActivityInput,
  type ResolvedToolActivityInput,
  resolveToolActivityInput,
  toolCallFromActivity,
  turnOfToolCallSummary,
  turnActivityIdPrefix,
  toolIdempotencyKey,
  defaultToolResultByteBudget,
  type ToolActivityResult,
} from './tools';
export { toolActivityType } from './tool-activity-type';
export {
  mcpListToolsActivityName,
  mcpCallToolActivityName,
  type McpToolSpec,
  type ToolsetSnapshot,
  type McpListToolsInput,
  type McpListToolsResult,
  type McpCallToolInput,
} from './mcp';
export {
  mcpToolset,
  matchesToolPattern,
  isToolSelected,
  toolApproval,
  type McpToolsetDefinition,
  type McpToolsetOptions,
  type ToolsetApprovalPolicy,
  type ToolApproval,
} from './mcp-toolset';
export {
  defineTool,
  defineAgentTool,
  reservedActivityNames,
  type ToolDefinition,
  type ToolDefinitionOptions,
  type ToolRetryPolicy,
  type SubAgentRun,
  type SubAgentSpec,
  type AgentToolOptions,
} from './tool-definition';
export { type Message, type InputMessage } from './messages';
export {
  type FinalizeReason,
  type Termination,
  type PlannerNote,
  type AwaitItem,
  type Await,
  type FinalResponse,
  type PlanResult,
  type ParsedPlanResult,
} from './plan';
export {
  defaultRunPolicy,
  type ChildRun,
  type RunPolicy,
  type RunInput,
  type ParsedRunInput,
  type RunStatus,
  type BudgetLine,
  type CostReport,
  type RunResult,
  type RunStatusReport,
  type ProviderWait,
} from './run';
export { type RunEvent, type RunEventType, type RunEventDraft, type EventPage } from './events';
export {
  agentRunWorkflowType,
  statusQuery,
  eventsQuery,
  transcriptQuery,
  pauseSignal,
  resumeSignal,
  interveneSignal,
  killSignal,
  earlyToolCallSignal,
  setBudgetSignal,
  pauseUpdate,
  resumeUpdate,
  interveneUpdate,
  killUpdate,
  setBudgetUpdate,
  waitForEventsUpdate,
  pendingInputsQuery,
  answerSignal,
  decideSignal,
  answerAwaitUpdate,
  decideCallUpdate,
} from './definitions';
export { type AwaitAnswer, type ParsedAwaitAnswer, type CallDecision, type ParsedCallDecision, type ConfirmationPolicy, type PendingInputs } from './hitl';
export {
  type InterventionPoint,
  type PauseRequest,
  type ResumeRequest,
  type KillRequest,
  type BudgetChange,
  type Intervention,
  type ParsedIntervention,
  type PauseResult,
  type InterventionReceipt,
  type WaitForEventsRequest,
} from './control';
export { agentNameSearchAttribute, agentStatusSearchAttribute, agentTenantSearchAttribute, agentRunStartAttributes } from './search-attributes';
export { tenantIdSchema, maxTenantIdChars } from './tenant';
export {
  agentSessionWorkflowType,
  sessionSchemaVersion,
  sendMessageUpdate,
  sessionQuery,
  closeSessionSignal,
  type SessionInput,
  type ParsedSessionInput,
  type SessionMessage,
  type SessionReport,
  type SessionRunRecord,
} from './session';
export { carriedRunStateVersion, continuationInput, type CarriedRunState } from './carried-state';
export { lazySchema } from './lazy';
