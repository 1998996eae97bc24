import { z } from 'zod';
import { builtOnce } from './lazy';
import { inputIdSchema, inputJsonValueSchema } from './json';
import { interventionPointSchema } from './points';
import { runPolicySchema } from './run';

export { interventionPointSchema, type InterventionPoint } from './points';

/** Payload of the pause signal / update. */
export const pauseRequestSchema = builtOnce(() =>
  z.object({
    reason: z.string().max(2000).default('paused by operator'),
    /** Update only: how long to wait for the safe point before answering with an error. */
    timeoutMs: z.number().int().positive().max(3_600_000).default(30_000),
  }),
);
export type PauseRequest = z.input<ReturnType<typeof pauseRequestSchema>>;

/** Payload of the resume signal / update. */
export const resumeRequestSchema = builtOnce(() => z.object({ reason: z.string().max(2000).optional() }));
export type ResumeRequest = z.input<ReturnType<typeof resumeRequestSchema>>;

/**
 * Payload of the kill signal / update. `endedBy`: set by a session whose message ends its active
 * run (`whenBusy` `interrupt` or `rollback`), naming that message, so a recorded run says what ended it.
 */
export const killRequestSchema = builtOnce(() =>
  z.object({
    reason: z.string().max(2000).default('killed by operator'),
    endedBy: z.object({ whenBusy: z.enum(['interrupt', 'rollback']), messageId: z.string().min(1).max(128) }).optional(),
  }),
);
export type KillRequest = z.input<ReturnType<typeof killRequestSchema>>;

/** Payload of setBudget: new caps; omitted caps keep their value. */
export const budgetChangeSchema = builtOnce(() =>
  runPolicySchema()
    .pick({ maxIterations: true, maxToolCalls: true, maxConsecutiveFailures: true, timeBudgetMs: true, maxTokens: true, maxModelCalls: true, maxCost: true })
    .partial()
    .refine((change) => Object.keys(change).length > 0, 'name at least one budget to change'),
);
export type BudgetChange = z.input<ReturnType<typeof budgetChangeSchema>>;

/** One operator intervention. Modifications are queued and applied at the next matching safe point. */
export const interventionSchema = builtOnce(() =>
  z.discriminatedUnion('kind', [
    /** Appended to the conversation before the next planner turn. */
    z.object({
      kind: z.literal('inject_message'),
      role: z.enum(['user', 'system']),
      content: z.string().min(1),
      /** The session message it delivers (`whenBusy: steer`): the run's result lists the ids its planner saw (`RunResult.steered`). */
      messageId: z.string().min(1).max(128).optional(),
    }),
    /** Replaces the agent's system instructions from the next planner turn on. */
    z.object({ kind: z.literal('override_system_prompt'), content: z.string().min(1) }),
    /**
     * Replaces the arguments of a pending (planned, not yet dispatched) call; validated against the
     * tool's schema. `upcoming`: the call is not planned yet and will be by the next planner turn
     * (a rewind's correction); without it, a call that is not pending is refused.
     */
    z.object({ kind: z.literal('edit_call'), toolCallId: inputIdSchema(), args: inputJsonValueSchema(), upcoming: z.boolean().optional() }),
    /** Closes a pending call without running it; the planner sees the reason. `upcoming` as for edit_call. */
    z.object({ kind: z.literal('drop_call'), toolCallId: inputIdSchema(), reason: z.string().default('dropped by operator'), upcoming: z.boolean().optional() }),
    /** Refuses every later call of a tool until unblocked. */
    z.object({ kind: z.literal('block_tool'), name: inputIdSchema(), reason: z.string().default('blocked by operator') }),
    z.object({ kind: z.literal('unblock_tool'), name: inputIdSchema() }),
    /** Pauses the run when the point is reached (optionally only for one tool). */
    z.object({ kind: z.literal('set_breakpoint'), point: interventionPointSchema(), tool: z.string().optional(), once: z.boolean().default(false) }),
    z.object({ kind: z.literal('clear_breakpoint'), point: interventionPointSchema(), tool: z.string().optional() }),
    /** Fetches the tool list of an MCP toolset (all toolsets when absent) again before the next planner turn. */
    z.object({ kind: z.literal('refresh_tools'), toolset: inputIdSchema().optional() }),
  ]),
);
export type Intervention = z.input<ReturnType<typeof interventionSchema>>;
export type ParsedIntervention = z.output<ReturnType<typeof interventionSchema>>;

/** What the pause update answers once the run is paused. */
export const pauseResultSchema = builtOnce(() =>
  z.object({
    status: z.literal('paused'),
    point: interventionPointSchema(),
    turn: z.number().int().nonnegative(),
    /** History length when the run paused: the event id a rewind or a replay can refer to. */
    historyLength: z.number().int().nonnegative(),
  }),
);
export type PauseResult = z.infer<ReturnType<typeof pauseResultSchema>>;

/** What the intervene update answers. */
export const interventionReceiptSchema = builtOnce(() =>
  z.object({
    id: z.number().int().positive(),
    kind: z.string(),
    /** `applied` for policy changes that act at once; `queued` for modifications waiting for their safe point. */
    state: z.enum(['applied', 'queued']),
  }),
);
export type InterventionReceipt = z.infer<ReturnType<typeof interventionReceiptSchema>>;

/** Arguments of the events long-poll update. */
export const waitForEventsRequestSchema = builtOnce(() =>
  z.object({
    afterSeq: z.number().int().nonnegative().default(0),
    limit: z.number().int().positive().max(1000).default(200),
    timeoutMs: z.number().int().positive().max(300_000).default(30_000),
  }),
);
export type WaitForEventsRequest = z.input<ReturnType<typeof waitForEventsRequestSchema>>;
