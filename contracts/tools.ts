import { z } from 'zod';
import { builtOnce } from './lazy';
import { jsonObjectSchema, jsonValueSchema } from './json';

/**
 * Why a tool call failed, in words a planner (and a model) can act on. A closed set,
 * from the planner contract (seed 001).
 */
export const retryReasonSchema = builtOnce(() =>
  z.enum([
    'invalid_arguments',
    'missing_fields',
    'malformed_response',
    'timeout',
    'rate_limited',
    'tool_unavailable',
  ]),
);
export type RetryReason = z.infer<ReturnType<typeof retryReasonSchema>>;

/** Structured recovery guidance attached to a failed tool call. */
export const retryHintSchema = builtOnce(() =>
  z.object({
    reason: retryReasonSchema(),
    tool: z.string().optional(),
    restrictToTool: z.boolean().optional(),
    missingFields: z.array(z.string()).optional(),
    exampleInput: jsonObjectSchema().optional(),
    priorInput: jsonValueSchema().optional(),
    clarifyingQuestion: z.string().optional(),
    message: z.string().optional(),
  }),
);
export type RetryHint = z.infer<ReturnType<typeof retryHintSchema>>;

/**
 * Closed set of tool error types. `tool_failed`: the tool threw; `tool_unknown`: no such tool;
 * `invalid_arguments`: arguments did not match the schema (no activity ran); `invalid_result`:
 * the tool's result did not match its output schema; `timeout`; `cancelled`: the call was
 * cancelled (kill, time budget); `tool_cap`: not run because the tool-call cap was reached;
 * `rejected`: not run because an operator, a human or an agent hook refused it;
 * `dependency_failed`: not run because a call it depends on did not succeed (or the plan's
 * dependencies are invalid: an unknown id, a cycle); `output_conflict`: its output path was
 * already written (output paths are write-once).
 */
export const toolErrorTypeSchema = builtOnce(() =>
  z.enum([
    'tool_failed',
    'tool_unknown',
    'invalid_arguments',
    'invalid_result',
    'timeout',
    'cancelled',
    'tool_cap',
    'rejected',
    'dependency_failed',
    'output_conflict',
  ]),
);
export type ToolErrorType = z.infer<ReturnType<typeof toolErrorTypeSchema>>;

/** A structured tool failure. `cause` is the tool's own error type string, when it gave one. */
export const toolErrorSchema = builtOnce(() =>
  z.object({
    type: toolErrorTypeSchema(),
    message: z.string(),
    cause: z.string().optional(),
  }),
);
export type ToolError = z.infer<ReturnType<typeof toolErrorSchema>>;

/** Execution metrics of one tool call. */
export const toolTelemetrySchema = builtOnce(() =>
  z.object({
    /** Workflow-clock time from dispatch to result, including retries. */
    durationMs: z.number().nonnegative(),
    /** Attempts the final activity execution took (1 when it succeeded first time). */
    attempts: z.number().int().nonnegative().optional(),
  }),
);
export type ToolTelemetry = z.infer<ReturnType<typeof toolTelemetrySchema>>;

/** A tool call the model activity reports while the model is still streaming (early dispatch). */
export const earlyToolCallSchema = builtOnce(() =>
  z.object({
    turn: z.number().int().nonnegative(),
    toolCallId: z.string().min(1).max(200),
    name: z.string().min(1),
    args: jsonValueSchema(),
  }),
);
export type EarlyToolCall = z.infer<ReturnType<typeof earlyToolCallSchema>>;

/** A write-once output path: dot-separated names such as `report.summary`. */
export const outputPathSchema = builtOnce(() =>
  z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'an output path is dot-separated names of letters, digits, _ and -'),
);

/**
 * A tool call requested by a planner. `id` is optional; the runtime assigns one if absent.
 *
 * Dependency-aware plans: `dependsOn` names calls of the same plan (by their `id`) that must
 * succeed first; the call starts as soon as they have, and its tool receives their outputs.
 * `outputPath` is a write-once slot of the run: the first successful call writes it, and the
 * calls of one plan that share a path are alternatives (the first success wins, the others are
 * cancelled). A call whose path was written in an earlier turn is refused (`output_conflict`).
 */
export const toolCallSchema = builtOnce(() =>
  z.object({
    id: z.string().min(1).max(200).optional(),
    name: z.string().min(1),
    args: jsonValueSchema(),
    dependsOn: z.array(z.string().min(1).max(200)).max(64).optional(),
    outputPath: outputPathSchema().optional(),
  }),
);
export type ToolCall = z.infer<ReturnType<typeof toolCallSchema>>;

/** A tool call as scheduled by the runtime: the call plus its correlation ids. */
export const toolRequestSchema = builtOnce(() =>
  z.object({
    toolCallId: z.string().min(1),
    name: z.string().min(1),
    args: jsonValueSchema(),
    turn: z.number().int().nonnegative(),
    parentToolCallId: z.string().optional(),
    /** Run-unique ids of the calls of this plan this call waits for (resolved from the plan's `dependsOn`). */
    dependsOn: z.array(z.string()).optional(),
    /** The write-once output path this call writes when it succeeds. */
    outputPath: z.string().optional(),
  }),
);
export type ToolRequest = z.infer<ReturnType<typeof toolRequestSchema>>;

/** Why a result was left out of workflow payloads: over the byte budget, or dropped from an old turn when a long run continued as new. */
export const resultOmittedReasonSchema = builtOnce(() => z.enum(['workflow_budget', 'compacted']));

/**
 * One executed (or refused) tool call in a workflow-safe form: what planners see on resume.
 * Exactly one of `result` / `error` is meaningful, according to `status`.
 */
export const toolOutputSchema = builtOnce(() =>
  z.object({
    toolCallId: z.string(),
    name: z.string(),
    args: jsonValueSchema(),
    turn: z.number().int().nonnegative(),
    status: z.enum(['ok', 'error', 'cancelled']),
    result: jsonValueSchema().optional(),
    resultBytes: z.number().int().nonnegative(),
    resultOmitted: z.boolean().optional(),
    resultOmittedReason: resultOmittedReasonSchema().optional(),
    /** A bounded prefix of the JSON result, present when the result was omitted. */
    resultPreview: z.string().optional(),
    error: toolErrorSchema().optional(),
    retryHint: retryHintSchema().optional(),
    telemetry: toolTelemetrySchema(),
    /** Session state keys the tool changed (`null` deletes); already applied to the run's session state. */
    sessionStateChanges: z.record(z.string(), jsonValueSchema().nullable()).optional(),
  }),
);
export type ToolOutput = z.infer<ReturnType<typeof toolOutputSchema>>;

/** What a written output path holds: the call that wrote it and its result. */
export const writtenOutputSchema = builtOnce(() =>
  z.object({
    toolCallId: z.string(),
    turn: z.number().int().nonnegative(),
    value: jsonValueSchema().optional(),
    /** The value is not carried: over the result byte budget, or compacted when a long run continued as new. */
    valueOmitted: z.boolean().optional(),
  }),
);
export type WrittenOutput = z.infer<ReturnType<typeof writtenOutputSchema>>;

/** The output of a call another call depends on, as its tool receives it. */
export const dependencyOutputSchema = builtOnce(() =>
  z.object({
    /** The call the dependent named in `dependsOn`. */
    toolCallId: z.string(),
    /** The call whose output this is: the named call, or the alternative that won its output path. */
    fromToolCallId: z.string(),
    name: z.string(),
    outputPath: z.string().optional(),
    result: jsonValueSchema().optional(),
    /** The result was over the byte budget and is not carried (see `resultPreview`). */
    resultOmitted: z.boolean().optional(),
    resultPreview: z.string().optional(),
  }),
);
export type DependencyOutput = z.infer<ReturnType<typeof dependencyOutputSchema>>;

/** The request of a compact tool input: what the activity id and type do not say. */
const compactToolRequestSchema = builtOnce(() => toolRequestSchema().partial({ toolCallId: true, name: true, turn: true }));

/**
 * Input of a tool activity. A full input (every release) names the run, the agent and the key;
 * a compact one (0.6.0, see `compactToolInputs`) leaves out what the activity reads from its
 * own info: the run id, the agent and tool (from the activity type `<agent>/<tool>`), the call id
 * and turn (from the activity id `turn-<N>/<call id>`), the key (from the workflow id, `epoch` or
 * the run id, and the call id), the default result budget and an empty session state.
 * Activities since 0.6.0 accept both.
 */
export const toolActivityInputSchema = builtOnce(() =>
  z.object({
    runId: z.string().optional(),
    agent: z.string().optional(),
    sessionId: z.string().optional(),
    /** Compact inputs leave out the call id and turn (in the activity id `turn-<N>/<call id>`) and the name (in the activity type). */
    request: z.union([toolRequestSchema(), compactToolRequestSchema()]),
    /** Stable across retries, worker restarts and continue-as-new, new after a rewind: workflow id + log epoch + call id. */
    idempotencyKey: z.string().optional(),
    /**
     * Compact inputs: the run's log epoch for the key, left out when it is the run id of the
     * activity's own execution (a run that has not continued as new); empty when the run has none.
     */
    epoch: z.string().optional(),
    /** Results larger than this many JSON bytes are omitted from the returned payload (default 64 KiB). */
    resultByteBudget: z.number().int().positive().optional(),
    sessionState: jsonObjectSchema().optional(),
    /** Set when the tool declared the session keys it reads: only those are in `sessionState`. */
    sessionKeys: z.array(z.string()).optional(),
    /** Outputs of the calls this call depends on, in `dependsOn` order. */
    dependencies: z.array(dependencyOutputSchema()).optional(),
  }),
);
/** The result budget a compact input leaves out (the run policy's default). */
export const defaultToolResultByteBudget = 64 * 1024;

/**
 * The key a tool deduplicates its side effects by: the same for every attempt of a call and
 * across worker crashes, different after a rewind (the call id repeats, the epoch does not), so
 * a corrected call is never deduplicated into the effect of the call it replaces.
 */
export function toolIdempotencyKey(workflowId: string, epoch: string | undefined, toolCallId: string): string {
  return epoch ? `${workflowId}/${epoch}/${toolCallId}` : `${workflowId}/${toolCallId}`;
}

export type ToolActivityInput = z.infer<ReturnType<typeof toolActivityInputSchema>>;

/** A tool activity input with what a compact input leaves out filled in. */
export type ResolvedToolActivityInput<T extends ToolActivityInput = ToolActivityInput> = Omit<T, 'request'> &
  Required<Pick<ToolActivityInput, 'runId' | 'agent' | 'idempotencyKey' | 'resultByteBudget' | 'sessionState'>> & { readonly request: ToolRequest };

/**
 * The prefix of the ids of a turn's activities (`turn-<N>/<call id>` for tool calls,
 * `turn-<N>/model-<k>` for model calls): the first one marks the turn's boundary in history.
 */
export function turnActivityIdPrefix(turn: number): string {
  return `turn-${turn}/`;
}

/**
 * The summary of a tool call's activity (`turn <N>: <tool>`, and the server and tool of an MCP
 * call): what names a local tool's call in history and in the Temporal UI, a local activity having
 * no id of ours.
 */
export function toolCallSummary(turn: number, tool: string, mcp?: { readonly server: string; readonly tool: string }): string {
  return mcp ? `turn ${turn}: ${tool} (MCP ${mcp.server}/${mcp.tool})` : `turn ${turn}: ${tool}`;
}

/** The turn a {@link toolCallSummary} names. */
export function turnOfToolCallSummary(summary: string): number | undefined {
  const named = /^turn (\d+): /.exec(summary);
  return named ? Number(named[1]) : undefined;
}

/**
 * What a tool activity's type (`<agent>/<tool>`) and id (`turn-<N>/<call id>`) say about its
 * call; fields the type or id does not have are left out.
 */
export function toolCallFromActivity(info: { readonly activityType: string; readonly activityId: string }): { agent?: string; tool?: string; toolCallId?: string; turn?: number } {
  const slash = info.activityType.indexOf('/');
  const named = /^turn-(\d+)\/(.+)$/.exec(info.activityId);
  return {
    ...(slash > 0 ? { agent: info.activityType.slice(0, slash), tool: info.activityType.slice(slash + 1) } : {}),
    ...(named ? { turn: Number(named[1]), toolCallId: named[2] } : {}),
  };
}

/**
 * Fills in a compact tool activity input from the activity's own info (a full input is
 * returned as it is): the run id, the agent (activity type `<agent>/<tool>`), the key, the
 * default result budget and an empty session state.
 */
export function resolveToolActivityInput<T extends ToolActivityInput>(
  input: T,
  info: { readonly workflowExecution?: { readonly workflowId: string; readonly runId: string }; readonly activityType: string; readonly activityId: string },
): ResolvedToolActivityInput<T> {
  const call = toolCallFromActivity(info);
  const fromId = (field: string): never => {
    throw new Error(`a compact input of ${info.activityType} leaves out the call's ${field}, and activity id ${JSON.stringify(info.activityId)} is not turn-<N>/<call id>`);
  };
  const request: ToolRequest = {
    ...input.request,
    toolCallId: input.request.toolCallId ?? call.toolCallId ?? fromId('id'),
    name: input.request.name ?? call.tool ?? info.activityType,
    turn: input.request.turn ?? call.turn ?? fromId('turn'),
  };
  const run = (): { workflowId: string; runId: string } => {
    if (!info.workflowExecution) throw new Error(`a compact input of ${info.activityType} needs the run of its activity info, and this activity has none`);
    return info.workflowExecution;
  };
  return {
    ...input,
    runId: input.runId ?? run().runId,
    agent: input.agent ?? call.agent ?? info.activityType,
    idempotencyKey: input.idempotencyKey ?? toolIdempotencyKey(run().workflowId, input.epoch ?? run().runId, request.toolCallId),
    resultByteBudget: input.resultByteBudget ?? defaultToolResultByteBudget,
    sessionState: input.sessionState ?? {},
    request,
  };
}

/** What a tool activity returns to the workflow. */
export const toolActivityResultSchema = builtOnce(() =>
  z.object({
    result: jsonValueSchema().optional(),
    /** Left out in answers to compact inputs when the result is there (the workflow measures it). */
    resultBytes: z.number().int().nonnegative().optional(),
    resultOmitted: z.boolean().optional(),
    resultOmittedReason: resultOmittedReasonSchema().optional(),
    resultPreview: z.string().optional(),
    /** Left out in answers to compact inputs when it is 1. */
    attempt: z.number().int().positive().optional(),
    /** Session state keys the tool set (`null` deletes), applied by the workflow in call order. */
    sessionStateChanges: z.record(z.string(), jsonValueSchema().nullable()).optional(),
    /** MCP calls: the version of the server's tool list when the call ended (the run refreshes its snapshot when it differs). */
    listVersion: z.string().optional(),
    /**
     * When the tool finished (the worker's clock, ms since the epoch). The run does not charge its
     * time budget for the wait between a turn's last end and the task that records it: a rewind's
     * reset, or no workflow worker running.
     */
    endedAtMs: z.number().int().nonnegative().optional(),
  }),
);
export type ToolActivityResult = z.infer<ReturnType<typeof toolActivityResultSchema>>;

/** Details carried by a tool's ApplicationFailure so the workflow can rebuild a RetryHint. */
export const toolFailureDetailsSchema = builtOnce(() => z.object({ retryHint: retryHintSchema().optional() }));
