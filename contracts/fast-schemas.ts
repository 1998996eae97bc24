import {
  anyString,
  anything,
  array,
  boolean,
  fastSafeParse,
  json,
  nonEmptyString,
  nonNegativeInt,
  object,
  oneOf,
  optional,
  positiveInt,
  positiveNumber,
  record,
  required,
  string,
  tagged,
  withDefault,
  type FastShape,
  unsure,
} from './fast-parse';
import { planResultSchema, type ParsedPlanResult } from './plan';
import { runInputSchema, runPolicySchema, type ParsedRunInput, type RunPolicy } from './run';
import { toolActivityResultSchema, type ToolActivityResult, type ToolCall } from './tools';

/*
 * Mirrors of the schemas a run parses at its start and on every turn (see fast-parse.ts). Each
 * shape lists every field of its schema, in the schema's order; a field whose value is rare
 * here (notes, retry hints, awaits, confirmation policies) is `leaveToZod`: when present, zod parses.
 */

/** A field this mirror leaves to zod whenever it is there. */
const leaveToZod = optional(() => unsure);

/** toolCallSchema. */
export const toolCallShape: FastShape = {
  id: optional(string(1, 200)),
  name: required(nonEmptyString),
  args: required(json),
  dependsOn: optional(array(string(1, 200), 0, 64)),
  outputPath: optional(string(1, 200, /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/)),
};
export const fastToolCall = object<ToolCall>(toolCallShape);

/** The options of planResultSchema (await plans go to zod), and finalResponseSchema. */
export const finalResponseShape: FastShape = { text: required(anyString), structured: optional(json) };
export const planShapes: Readonly<Record<'tool_calls' | 'final', FastShape>> = {
  tool_calls: {
    type: required(oneOf('tool_calls')),
    calls: required(array(fastToolCall, 1)),
    text: optional(anyString),
    notes: leaveToZod,
    retryHint: leaveToZod,
  },
  final: {
    type: required(oneOf('final')),
    response: required(object(finalResponseShape)),
    notes: leaveToZod,
    retryHint: leaveToZod,
  },
};
export const fastPlanResult = tagged<ParsedPlanResult>('type', { tool_calls: object(planShapes.tool_calls), final: object(planShapes.final) });

/** toolActivityResultSchema. */
export const toolActivityResultShape: FastShape = {
  result: optional(json),
  resultBytes: optional(nonNegativeInt),
  resultOmitted: optional(boolean),
  resultOmittedReason: optional(oneOf('workflow_budget', 'compacted')),
  resultPreview: optional(anyString),
  attempt: optional(positiveInt),
  sessionStateChanges: optional(record(json)),
  listVersion: optional(anyString),
  endedAtMs: optional(nonNegativeInt),
};
export const fastToolActivityResult = object<ToolActivityResult>(toolActivityResultShape);

/** messageSchema (by role) and inputMessageSchema. */
export const messageShapes: Readonly<Record<'system' | 'user' | 'assistant' | 'tool', FastShape>> = {
  system: { role: required(oneOf('system')), content: required(anyString) },
  user: { role: required(oneOf('user')), content: required(anyString) },
  assistant: {
    role: required(oneOf('assistant')),
    content: optional(anyString),
    toolCalls: optional(array(object({ id: required(anyString), name: required(anyString), args: required(json) }))),
  },
  tool: { role: required(oneOf('tool')), toolCallId: required(anyString), name: required(anyString), content: required(anyString) },
};
const fastMessage = tagged('role', Object.fromEntries(Object.entries(messageShapes).map(([role, shape]) => [role, object(shape)])));
export const inputMessageShape: FastShape = { role: required(oneOf('user', 'system')), content: required(nonEmptyString) };

/** runPolicySchema. */
export const runPolicyShape: FastShape = {
  maxIterations: required(positiveInt),
  maxToolCalls: required(positiveInt),
  maxConsecutiveFailures: required(positiveInt),
  timeBudgetMs: required(positiveInt),
  maxTokens: optional(positiveInt),
  maxModelCalls: optional(positiveInt),
  maxCost: optional(positiveNumber),
  parallelToolCalls: required(boolean),
  earlyDispatch: optional(boolean),
  maxConcurrentToolCalls: optional(positiveInt),
  toolResultByteBudget: required(positiveInt),
  continueAsNewAfterEvents: required(positiveInt),
  continueAsNewAfterUpdates: optional(positiveInt),
  continueAsNewAfterSignals: optional(positiveInt),
};
export const fastRunPolicy = object<RunPolicy>(runPolicyShape);
/** `policy` of a run's input: runPolicySchema with every field optional. */
const partialRunPolicyShape: FastShape = Object.fromEntries(Object.entries(runPolicyShape).map(([key, field]) => [key, optional(field.check)]));

const interventionPoint = oneOf('before_llm', 'after_llm', 'before_tool', 'after_tool', 'task_boundary', 'before_commit');
export const breakpointShape: FastShape = { point: required(interventionPoint), tool: optional(anyString), once: withDefault(boolean, () => false) };
export const parentShape: FastShape = { workflowId: required(anyString), toolCallId: required(anyString), path: required(array(anyString)) };

/** runInputSchema. */
export const runInputShape: FastShape = {
  agent: required(nonEmptyString),
  messages: required(array(object(inputMessageShape), 1)),
  history: withDefault(array(fastMessage), () => []),
  sessionId: optional(anyString),
  // Its pattern is checked by the schema (tenantIdSchema), as the zod path does.
  tenant: leaveToZod,
  sessionState: withDefault(record(json), () => ({})),
  policy: optional(object(partialRunPolicyShape)),
  labels: withDefault(record(anyString), () => ({})),
  breakpoints: withDefault(array(object(breakpointShape)), () => []),
  confirmation: leaveToZod,
  plannerOptions: optional(json),
  parent: optional(object(parentShape)),
  continued: optional(anything),
};
export const fastRunInput = object<ParsedRunInput>(runInputShape);

/** runInputSchema.safeParse, fast for plain inputs. */
export const parseRunInput = (value: unknown) => fastSafeParse(fastRunInput, value, runInputSchema);
/** planResultSchema.safeParse, fast for tool-call and final plans. */
export const parsePlanResult = (value: unknown) => fastSafeParse(fastPlanResult, value, planResultSchema);
/** toolActivityResultSchema.safeParse, fast for plain answers. */
export const parseToolActivityResult = (value: unknown) => fastSafeParse(fastToolActivityResult, value, toolActivityResultSchema);
/** runPolicySchema.safeParse, fast for plain policies. */
export const parseRunPolicy = (value: unknown) => fastSafeParse(fastRunPolicy, value, runPolicySchema);
