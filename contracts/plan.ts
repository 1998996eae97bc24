import { z } from 'zod';
import { builtOnce } from './lazy';
import { jsonObjectSchema, jsonValueSchema } from './json';
import { retryHintSchema, toolCallSchema } from './tools';

/** Why the runtime forced a final planner turn. */
export const finalizeReasonSchema = builtOnce(() =>
  z.enum([
    'time_budget',
    'tool_cap',
    'failure_cap',
    'token_budget',
    'iteration_cap',
    'await_timeout',
    'cost_budget',
  ]),
);
export type FinalizeReason = z.infer<ReturnType<typeof finalizeReasonSchema>>;

/** A runtime-initiated finalize request passed to the planner's last turn. */
export const terminationSchema = builtOnce(() =>
  z.object({
    reason: finalizeReasonSchema(),
    message: z.string(),
  }),
);
export type Termination = z.infer<ReturnType<typeof terminationSchema>>;

/** A planner annotation surfaced to subscribers as a `note` event. */
export const plannerNoteSchema = builtOnce(() =>
  z.object({
    text: z.string(),
    labels: z.record(z.string(), z.string()).optional(),
  }),
);
export type PlannerNote = z.infer<ReturnType<typeof plannerNoteSchema>>;

/**
 * Clarification await item (seed 001 AwaitClarification). When `toolCallId` is set (a model
 * asked through a human tool), the answer closes that call as its tool result; otherwise it
 * enters the conversation as a user message.
 */
export const awaitClarificationSchema = builtOnce(() =>
  z.object({
    kind: z.literal('clarification'),
    id: z.string().min(1),
    question: z.string().min(1),
    missingFields: z.array(z.string()).optional(),
    restrictToTool: z.string().optional(),
    exampleInput: jsonObjectSchema().optional(),
    toolName: z.string().optional(),
    toolCallId: z.string().optional(),
    /** Answer used when the await times out with `onTimeout: 'proceed'`. */
    defaultAnswer: z.string().optional(),
  }),
);

/** Multiple-choice questions await item, bound to a tool call (seed 001 AwaitQuestions). */
export const awaitQuestionsSchema = builtOnce(() =>
  z.object({
    kind: z.literal('questions'),
    id: z.string().min(1),
    toolName: z.string().optional(),
    toolCallId: z.string().optional(),
    title: z.string().optional(),
    questions: z
      .array(
        z.object({
          id: z.string().min(1),
          prompt: z.string().min(1),
          options: z.array(z.object({ id: z.string().min(1), label: z.string() })).min(1),
          allowMultiple: z.boolean().optional(),
          /** Option ids used when the await times out with `onTimeout: 'proceed'`. */
          defaultOptionIds: z.array(z.string()).optional(),
        }),
      )
      .min(1),
  }),
);

/** External tools await item: calls the caller executes and returns results for. */
export const awaitExternalToolsSchema = builtOnce(() =>
  z.object({
    kind: z.literal('external_tools'),
    id: z.string().min(1),
    calls: z.array(z.object({ toolCallId: z.string().min(1), name: z.string().min(1), args: jsonValueSchema() })).min(1),
  }),
);

/** One item of an await barrier. */
export const awaitItemSchema = builtOnce(() =>
  z.discriminatedUnion('kind', [
    awaitClarificationSchema(),
    awaitQuestionsSchema(),
    awaitExternalToolsSchema(),
  ]),
);
export type AwaitItem = z.infer<ReturnType<typeof awaitItemSchema>>;

/** A barrier: the run waits once for all items, in order. */
export const awaitSchema = builtOnce(() =>
  z
    .object({
      items: z.array(awaitItemSchema()).min(1),
      /** How long to wait for every item; no timeout when absent. */
      timeoutMs: z.number().int().positive().optional(),
      /**
       * On timeout: `fail` the run (`await_timeout`), give the planner a `finalize` turn, or
       * `proceed` with each item's default answer (items without one are answered "no answer").
       */
      onTimeout: z.enum(['fail', 'finalize', 'proceed']).default('fail'),
    })
    .refine((a) => new Set(a.items.map((i) => i.id)).size === a.items.length, 'await item ids must be unique'),
);
export type Await = z.infer<ReturnType<typeof awaitSchema>>;

/** The assistant's final answer. `structured` carries a validated structured output, if any. */
export const finalResponseSchema = builtOnce(() =>
  z.object({
    text: z.string(),
    structured: jsonValueSchema().optional(),
  }),
);
export type FinalResponse = z.infer<ReturnType<typeof finalResponseSchema>>;

/**
 * A planner's decision for the next step: run tool calls, finish with a final response, or
 * wait for external input.
 */
export const planResultSchema = builtOnce(() => {
  const planCommon = {
    notes: z.array(plannerNoteSchema()).optional(),
    retryHint: retryHintSchema().optional(),
  };
  return z.discriminatedUnion('type', [
    z.object({
      type: z.literal('tool_calls'),
      calls: z.array(toolCallSchema()).min(1),
      /** Text the assistant said alongside the calls; kept in the transcript with them. */
      text: z.string().optional(),
      ...planCommon,
    }),
    z.object({ type: z.literal('final'), response: finalResponseSchema(), ...planCommon }),
    z.object({ type: z.literal('await'), await: awaitSchema(), ...planCommon }),
  ]);
});
/** What a planner returns (defaults not yet applied). */
export type PlanResult = z.input<ReturnType<typeof planResultSchema>>;
/** A PlanResult after the runtime validated it and applied defaults. */
export type ParsedPlanResult = z.output<ReturnType<typeof planResultSchema>>;
