export { createLlmPlanner, type LlmPlannerSetup } from './llm-planner';
export { defineLlmAgent, isLlmAgent, type LlmAgentDefinition, type LlmAgentOptions } from './llm-agent';
export {
  llmRunOptionsSchema,
  defaultModelActivityOptions,
  defaultMaxRepairTurns,
  type LlmPlannerConfig,
  type LlmRunOptions,
  type ModelActivityOptions,
  type ModelRequestSettings,
  type OutputSchemaDefinition,
} from './config';
export {
  askClarificationTool,
  askMultipleChoiceTool,
  askClarificationArgsSchema,
  askMultipleChoiceArgsSchema,
  enabledHumanTools,
  humanCallToAwaitItem,
  type HumanTool,
  type HumanToolsConfig,
  type HumanCall,
} from './human-tools';
export {
  callModelActivityName,
  modelCallInputSchema,
  modelAnswerSchema,
  modelToolCallSchema,
  modelUsageSchema,
  type ModelCallInput,
  type ParsedModelCallInput,
  type ModelAnswer,
  type ModelToolCall,
  type ModelUsage,
} from '../../../contracts/model-call';
export { modelErrorTypeSchema, nonRetryableModelErrorTypes, modelErrorAdvice, isModelErrorType, type ModelErrorType } from './errors';
export { emptyDigest, chainDigest, prefixDigests, canonicalJson, fnv1a64 } from './digest';
export { answerToStep, parseToolArguments, finalizeNotice, type AnswerStep, type AnswerContext } from './answer-to-plan';
export { unsentMessages, markSent, sentWindow, defaultMaxInlineTranscriptBytes, type TranscriptWindow } from './transcript-window';
export { modelActivityCaller, toRunFailure, modelRunFailure, type ModelCaller } from './model-activity-proxy';
