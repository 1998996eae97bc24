import { z } from 'zod';
import { approvalRulesSchema } from './approval-policy';
import { builtOnce } from './lazy';
import { inputIdSchema, inputJsonValueSchema, jsonValueSchema } from './json';

/** An answer to one await item. `itemId` is the item's id. */
export const awaitAnswerSchema = builtOnce(() =>
  z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('clarification'),
      itemId: inputIdSchema(),
      answer: z.string().min(1, 'the answer must not be empty'),
      /** Values for the item's `missingFields`; every missing field must be given. */
      fields: z.record(z.string(), inputJsonValueSchema()).optional(),
    }),
    z.object({
      kind: z.literal('questions'),
      itemId: inputIdSchema(),
      /** Selected option ids per question id; every question must be answered. */
      answers: z.record(z.string(), z.array(z.string()).min(1, 'select at least one option')),
    }),
    z.object({
      kind: z.literal('external_tools'),
      itemId: inputIdSchema(),
      results: z
        .array(
          z.object({
            toolCallId: inputIdSchema(),
            result: inputJsonValueSchema().optional(),
            error: z.string().optional(),
          }),
        )
        .min(1),
    }),
  ]),
);
export type AwaitAnswer = z.input<ReturnType<typeof awaitAnswerSchema>>;
export type ParsedAwaitAnswer = z.output<ReturnType<typeof awaitAnswerSchema>>;

/**
 * The approval digest a decision is for (`sha256:<64 hex>`, the pending approval's `digest`): the
 * run refuses the decision when the call waiting under its id has other arguments now.
 */
const decidedDigestSchema = builtOnce(() =>
  z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/, 'an approval digest is sha256: and 64 lowercase hex digits, as the pending approval shows it')
    .optional(),
);

/** A human decision on a tool call that waits for confirmation. */
export const callDecisionSchema = builtOnce(() =>
  z.discriminatedUnion('decision', [
    /** Run it. `always`: approve every later call of this tool in this run too. */
    z.object({ decision: z.literal('approve'), toolCallId: inputIdSchema(), always: z.boolean().default(false), by: z.string().optional(), digest: decidedDigestSchema() }),
    /** Do not run it; the planner sees the reason. */
    z.object({ decision: z.literal('reject'), toolCallId: inputIdSchema(), reason: z.string().default('rejected by a human'), by: z.string().optional(), digest: decidedDigestSchema() }),
    /** Run it with these arguments (validated against the tool's schema); the original is recorded. */
    z.object({ decision: z.literal('edit'), toolCallId: inputIdSchema(), args: inputJsonValueSchema(), by: z.string().optional(), digest: decidedDigestSchema() }),
    /** Run another call in its place. */
    z.object({ decision: z.literal('replace'), toolCallId: inputIdSchema(), name: inputIdSchema(), args: inputJsonValueSchema(), by: z.string().optional(), digest: decidedDigestSchema() }),
  ]),
);
export type CallDecision = z.input<ReturnType<typeof callDecisionSchema>>;
export type ParsedCallDecision = z.output<ReturnType<typeof callDecisionSchema>>;

/** Per-run confirmation policy, on top of tools flagged `requiresConfirmation`. */
export const confirmationPolicySchema = builtOnce(() =>
  z.object({
    /** Require confirmation for every tool call. */
    all: z.boolean().default(false),
    /** Require confirmation for these tools. */
    tools: z.array(z.string()).default([]),
    /** Never ask for these tools (overrides the tool flag). */
    exempt: z.array(z.string()).default([]),
    /**
     * Approval rules (since 1.0.0): the first that matches a call allows it without asking,
     * denies it, or asks a person; see contracts/approval-policy.ts.
     */
    rules: approvalRulesSchema().optional(),
    /**
     * Tell people when a call starts to wait: the worker's approval notifier (an activity, retried
     * until it is delivered or the run ends) posts a signed approval link to a webhook.
     */
    notify: z.boolean().optional(),
  }),
);
export type ConfirmationPolicy = z.input<ReturnType<typeof confirmationPolicySchema>>;

/** Everything a run waits on from humans right now, for UIs and ops tools. */
export const pendingInputsSchema = builtOnce(() =>
  z.object({
    approvals: z.array(
      z.object({ toolCallId: z.string(), name: z.string(), args: jsonValueSchema(), digest: z.string().optional(), turn: z.number().int(), requestedAt: z.string() }),
    ),
    await: z
      .object({
        awaitId: z.string(),
        items: z.array(z.object({ id: z.string(), kind: z.string(), answered: z.boolean(), item: jsonValueSchema() })),
        deadline: z.string().optional(),
      })
      .optional(),
  }),
);
export type PendingInputs = z.infer<ReturnType<typeof pendingInputsSchema>>;
