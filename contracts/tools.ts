import { z } from 'zod';
import { lazySchema } from './lazy';
import { jsonObjectSchema, jsonValueSchema } from './json';

/**
 * Why a tool call failed, in words a planner (and a model) can act on. A closed set,
 * from the planner contract (seed 001).
 */
export const retryReasonSchema = lazySchema(() =>
  z.enum([
    'invalid_arguments',
    'missing_fields',
    'malformed_response',
    'timeout',
    'rate_limited',
    'tool_unavailable',
  ]),
);
export type RetryReason = z.infer<typeof retryReasonSchema>;

/** Structured recovery guidance attached to a failed tool call. */
export const retryHintSchema = lazySchema(() =>
  z.object({
    reason: retryReasonSchema,
    tool: z.string().optional(),
    restrictToTool: z.boolean().optional(),
    missingFields: z.array(z.string()).optional(),
    exampleInput: jsonObjectSchema.optional(),
    priorInput: jsonValueSchema.optional(),
    clarifyingQuestion: z.string().optional(),
    message: z.string().optional(),
  }),
);
export type RetryHint = z.infer<typeof retryHintSchema>;

/**
 * Closed set of tool error types. `tool_failed`: the tool threw; `tool_unknown`: no such tool;
 * `invalid_arguments`: arguments did not match the schema (no activity ran); `invalid_result`:
 * the tool's result did not match its output schema; `timeout`; `cancelled`: the call was
 * cancelled (kill, time budget); `tool_cap`: not run because the tool-call cap was reached;
 * `rejected`: not run because an operator, a human or an agent hook refused it.
 */
export const toolErrorTypeSchema = lazySchema(() =>
  z.enum([
    'tool_failed',
    'tool_unknown',
    'invalid_arguments',
    'invalid_result',
    'timeout',
    'cancelled',
    'tool_cap',
    'rejected',
  ]),
);
export type ToolErrorType = z.infer<typeof toolErrorTypeSchema>;

/** A structured tool failure. `cause` is the tool's own error type string, when it gave one. */
export const toolErrorSchema = lazySchema(() =>
  z.object({
    type: toolErrorTypeSchema,
    message: z.string(),
    cause: z.string().optional(),
  }),
);
export type ToolError = z.infer<typeof toolErrorSchema>;

/** Execution metrics of one tool call. */
export const toolTelemetrySchema = lazySchema(() =>
  z.object({
    /** Workflow-clock time from dispatch to result, including retries. */
    durationMs: z.number().nonnegative(),
    /** Attempts the final activity execution took (1 when it succeeded first time). */
    attempts: z.number().int().nonnegative().optional(),
  }),
);
export type ToolTelemetry = z.infer<typeof toolTelemetrySchema>;

/** A tool call requested by a planner. `id` is optional; the runtime assigns one if absent. */
export const toolCallSchema = lazySchema(() =>
  z.object({
    id: z.string().min(1).max(200).optional(),
    name: z.string().min(1),
    args: jsonValueSchema,
  }),
);
export type ToolCall = z.infer<typeof toolCallSchema>;

/** A tool call as scheduled by the runtime: the call plus its correlation ids. */
export const toolRequestSchema = lazySchema(() =>
  z.object({
    toolCallId: z.string().min(1),
    name: z.string().min(1),
    args: jsonValueSchema,
    turn: z.number().int().nonnegative(),
    parentToolCallId: z.string().optional(),
  }),
);
export type ToolRequest = z.infer<typeof toolRequestSchema>;

/** Why a result was left out of workflow payloads: over the byte budget, or dropped from an old turn when a long run continued as new. */
export const resultOmittedReasonSchema = lazySchema(() => z.enum(['workflow_budget', 'compacted']));

/**
 * One executed (or refused) tool call in a workflow-safe form: what planners see on resume.
 * Exactly one of `result` / `error` is meaningful, according to `status`.
 */
export const toolOutputSchema = lazySchema(() =>
  z.object({
    toolCallId: z.string(),
    name: z.string(),
    args: jsonValueSchema,
    turn: z.number().int().nonnegative(),
    status: z.enum(['ok', 'error', 'cancelled']),
    result: jsonValueSchema.optional(),
    resultBytes: z.number().int().nonnegative(),
    resultOmitted: z.boolean().optional(),
    resultOmittedReason: resultOmittedReasonSchema.optional(),
    /** A bounded prefix of the JSON result, present when the result was omitted. */
    resultPreview: z.string().optional(),
    error: toolErrorSchema.optional(),
    retryHint: retryHintSchema.optional(),
    telemetry: toolTelemetrySchema,
    /** Session state keys the tool changed (`null` deletes); already applied to the run's session state. */
    sessionStateChanges: z.record(z.string(), jsonValueSchema.nullable()).optional(),
  }),
);
export type ToolOutput = z.infer<typeof toolOutputSchema>;

/** Input of a tool activity. Run ids are included so tools can derive idempotency keys. */
export const toolActivityInputSchema = lazySchema(() =>
  z.object({
    runId: z.string(),
    agent: z.string(),
    sessionId: z.string().optional(),
    request: toolRequestSchema,
    /** Stable across retries, worker restarts and continue-as-new, new after a rewind: workflow id + log epoch + call id. */
    idempotencyKey: z.string(),
    /** Results larger than this many JSON bytes are omitted from the returned payload. */
    resultByteBudget: z.number().int().positive(),
    sessionState: jsonObjectSchema,
    /** Set when the tool declared the session keys it reads: only those are in `sessionState`. */
    sessionKeys: z.array(z.string()).optional(),
  }),
);
export type ToolActivityInput = z.infer<typeof toolActivityInputSchema>;

/** What a tool activity returns to the workflow. */
export const toolActivityResultSchema = lazySchema(() =>
  z.object({
    result: jsonValueSchema.optional(),
    resultBytes: z.number().int().nonnegative(),
    resultOmitted: z.boolean().optional(),
    resultOmittedReason: resultOmittedReasonSchema.optional(),
    resultPreview: z.string().optional(),
    attempt: z.number().int().positive(),
    /** Session state keys the tool set (`null` deletes), applied by the workflow in call order. */
    sessionStateChanges: z.record(z.string(), jsonValueSchema.nullable()).optional(),
    /** MCP calls: the version of the server's tool list when the call ended (the run refreshes its snapshot when it differs). */
    listVersion: z.string().optional(),
  }),
);
export type ToolActivityResult = z.infer<typeof toolActivityResultSchema>;

/** Details carried by a tool's ApplicationFailure so the workflow can rebuild a RetryHint. */
export const toolFailureDetailsSchema = lazySchema(() => z.object({ retryHint: retryHintSchema.optional() }));
