import { z } from 'zod';
import { builtOnce } from './lazy';
import { messageSchema } from './messages';
import { modelCallCostSchema } from './pricing';

/** Activity type of model calls (reserved in contracts/tool-definition.ts). */
export const callModelActivityName = 'callModel';

/**
 * Input of the `callModel` activity. It carries only what is new since the previous call of
 * the run: the worker rebuilds the rest from its transcript cache, or from the run's
 * `transcript` query when the cache misses, and checks it against `baseDigest`. This keeps
 * each model call's contribution to workflow history roughly constant.
 */
export const modelCallInputSchema = builtOnce(() =>
  z.object({
    workflowId: z.string().min(1),
    runId: z.string().min(1),
    agent: z.string().min(1),
    model: z.string().min(1),
    turn: z.number().int().nonnegative(),
    /** System instructions as rendered from session state for this turn; absent: no system message. */
    instructions: z.string().optional(),
    /** Messages `[0, baseCount)` of the run were sent before; the worker supplies them. */
    baseCount: z.number().int().nonnegative(),
    /** Chained digest (see digest.ts) of messages `[0, baseCount)`. */
    baseDigest: z.string().regex(/^[0-9a-f]{16}$/),
    /** Messages `[baseCount, …)` of the run: new since the previous call. */
    newMessages: z.array(messageSchema()),
    /** Messages after the transcript that are not part of the run (repair prompts, the finalize notice). */
    extraMessages: z.array(messageSchema()).default([]),
    /** Names of the tools offered; the worker derives their JSON schemas from the agent definition. */
    tools: z.array(z.string().min(1)),
    /** Tools whose calls the worker reports as soon as they are complete in the stream (early dispatch). */
    earlyTools: z.array(z.string().min(1)).optional(),
    /**
     * The MCP toolsets whose tools are among `tools`: the worker takes their schemas from the
     * server's list of that version. Absent for agents without toolsets.
     */
    toolsets: z.array(z.object({ server: z.string().min(1), version: z.string().min(1), prefix: z.string().optional() })).optional(),
    /** A Finalize turn: the model must answer without tools. */
    finalize: z.boolean().default(false),
    /** Name of the agent's output schema when the answer is requested as structured output. */
    outputSchema: z.string().optional(),
  }),
);
export type ModelCallInput = z.input<ReturnType<typeof modelCallInputSchema>>;
export type ParsedModelCallInput = z.output<ReturnType<typeof modelCallInputSchema>>;

/** A tool call as the model produced it: arguments are the raw JSON text. */
export const modelToolCallSchema = builtOnce(() =>
  z.object({
    /** Absent when the provider gave no id; the planner assigns one. */
    id: z.string().min(1).optional(),
    name: z.string(),
    arguments: z.string(),
  }),
);
export type ModelToolCall = z.infer<ReturnType<typeof modelToolCallSchema>>;

/** Token usage of one model call. */
export const modelUsageSchema = builtOnce(() =>
  z.object({
    promptTokens: z.number().int().nonnegative(),
    completionTokens: z.number().int().nonnegative(),
    totalTokens: z.number().int().nonnegative(),
    /** Of `promptTokens`, those the provider served from its cache (when it says). */
    cachedPromptTokens: z.number().int().nonnegative().optional(),
  }),
);
export type ModelUsage = z.infer<ReturnType<typeof modelUsageSchema>>;

/** What `callModel` returns: the model's answer and usage, nothing else. */
export const modelAnswerSchema = builtOnce(() =>
  z.object({
    content: z.string().optional(),
    toolCalls: z.array(modelToolCallSchema()),
    finishReason: z.string().optional(),
    /** Absent when the provider reported no usage. */
    usage: modelUsageSchema().optional(),
    /** Model name the provider reported. */
    model: z.string().optional(),
    /** What the call cost, priced by the worker's price table; absent without a price or usage. */
    cost: modelCallCostSchema().optional(),
  }),
);
export type ModelAnswer = z.infer<ReturnType<typeof modelAnswerSchema>>;
