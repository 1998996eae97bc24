import { z } from 'zod';
import { builtOnce } from './lazy';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { confirmationPolicySchema } from './hitl';
import { jsonObjectSchema, jsonValueSchema } from './json';
import { messageSchema } from './messages';
import { budgetLineSchema, runPolicySchema, type CostReport } from './run';
import { operation } from './operations';
import { tenantIdSchema } from './tenant';

/** Workflow type of a session: one conversation, many runs. */
export const agentSessionWorkflowType = 'agentSession';

/** The workflow id of a session's run: `<session workflow id>/run-<n>`. */
export function sessionRunWorkflowId(sessionWorkflowId: string, runNumber: number): string {
  return `${sessionWorkflowId}/run-${runNumber}`;
}

/** The session and run number a session run's workflow id names, if it is one. */
export function parseSessionRunWorkflowId(workflowId: string): { sessionWorkflowId: string; runNumber: number } | undefined {
  const match = /^(.+)\/run-(\d+)$/.exec(workflowId);
  return match ? { sessionWorkflowId: match[1] as string, runNumber: Number(match[2]) } : undefined;
}

/** Version of the carried session state; bump it with a migration when the shape changes. */
export const sessionSchemaVersion = 1;

/** Longest message id a session takes (an `Idempotency-Key` is most often a UUID: 36). */
export const maxMessageIdChars = 128;

/**
 * The id of a session's message: 1 to 128 printable ASCII characters, no spaces (a UUID, a
 * webhook's delivery id, `order-42`). A client gives it so that a retry is not sent twice; the
 * session gives one of its own (`m-<runNumber>`) to a message without it.
 */
export const messageIdSchema = builtOnce(() =>
  z
    .string()
    .min(1, 'a message id is 1 to 128 characters')
    .max(maxMessageIdChars, `a message id is at most ${maxMessageIdChars} characters`)
    .regex(/^[\x21-\x7e]+$/, 'a message id is printable ASCII without spaces (A-Z a-z 0-9 and punctuation)'),
);

/**
 * What a session does with a message that arrives while one of its runs is active
 * (workflows/sessions/busy-policy.ts): `enqueue` it (the default), `reject` it (answered at once,
 * naming the active run), `interrupt` the run (it ends now; the message runs next with the
 * conversation so far), `rollback` the run (it ends now and what it did is discarded; the message
 * runs next from the session as it was before it), or `steer` it (the message is delivered into
 * the active run at its next planner turn; if the run ends first, it runs next).
 */
export const busyPolicySchema = builtOnce(() => z.enum(['enqueue', 'reject', 'interrupt', 'rollback', 'steer']));
export type BusyPolicy = z.infer<ReturnType<typeof busyPolicySchema>>;

const runRecordSchema = builtOnce(() =>
  z.object({
    runNumber: z.number().int().positive(),
    workflowId: z.string(),
    /** The id of the message the run handles: the client's, or the session's own `m-<runNumber>` (since 1.0.0). */
    messageId: z.string().optional(),
    /** `dropped`: taken off the queue before it ran (editQueue). */
    status: z.enum(['queued', 'running', 'completed', 'failed', 'terminated', 'dropped']),
    final: z.string().optional(),
    error: z.string().optional(),
    /** What the run used, once it completed: its tokens and its money line (see costReportSchema). */
    tokens: z.number().nonnegative().optional(),
    cost: budgetLineSchema().optional(),
    /** A run a later message ended (its `whenBusy`): `interrupt` kept what it did, `rollback` discarded it. */
    endedBy: z.enum(['interrupt', 'rollback']).optional(),
    /** Messages steered into the run (`whenBusy: steer`), by id, that its planner saw. */
    steered: z.array(z.string()).optional(),
    /**
     * How the message this answers was taken, when not queued at the back: `next` (it runs after
     * the run it interrupted or rolled back), `steered` (delivered into the run of this record).
     */
    delivery: z.enum(['next', 'steered']).optional(),
  }),
);
export type SessionRunRecord = z.infer<ReturnType<typeof runRecordSchema>>;

/** What a session's runs used in all. */
const sessionUsageSchema = builtOnce(() =>
  z.object({
    runs: z.number().int().nonnegative(),
    tokens: z.number().nonnegative(),
    cost: z.number().nonnegative(),
    currency: z.string().optional(),
    costUnknownCalls: z.number().int().nonnegative(),
  }),
);
export type SessionUsage = z.infer<ReturnType<typeof sessionUsageSchema>>;

/** One user turn waiting for its run. */
const queuedMessageSchema = builtOnce(() =>
  z.object({
    runNumber: z.number().int().positive(),
    workflowId: z.string(),
    content: z.string().min(1),
    plannerOptions: jsonValueSchema().optional(),
    messageId: z.string().optional(),
  }),
);

export type QueuedSessionMessage = z.infer<ReturnType<typeof queuedMessageSchema>>;

/**
 * A change to a session's queue, for one message that waits for its run, named by its id: `edit`
 * its content (or planner options), `drop` it (its run record ends `dropped`; its id stays taken),
 * or move it to the `front` (it runs next).
 */
export const queueEditSchema = builtOnce(() =>
  z.discriminatedUnion('action', [
    z.object({ action: z.literal('edit'), messageId: z.string().min(1), content: z.string().min(1, 'the message must not be empty').optional(), plannerOptions: jsonValueSchema().optional() }),
    z.object({ action: z.literal('drop'), messageId: z.string().min(1), reason: z.string().max(500).optional() }),
    z.object({ action: z.literal('front'), messageId: z.string().min(1) }),
  ]),
);
export type QueueEdit = z.input<ReturnType<typeof queueEditSchema>>;
export type ParsedQueueEdit = z.output<ReturnType<typeof queueEditSchema>>;

/** The messages that wait for their runs, next first: what the session's report and editQueue show. */
const queueViewSchema = builtOnce(() =>
  z.array(
    z.object({
      runNumber: z.number().int().positive(),
      workflowId: z.string(),
      messageId: z.string().optional(),
      content: z.string(),
    }),
  ),
);
export type SessionQueueView = z.infer<ReturnType<typeof queueViewSchema>>;

/**
 * One decision of a session about its messages and runs, in order (`seq` from 1, `at` the
 * session's workflow time): what became of each message, when each run started and ended and why,
 * what a steer came to, and each change of the queue.
 */
export const sessionEventSchema = builtOnce(() =>
  z.intersection(
    z.object({ seq: z.number().int().positive(), at: z.string() }),
    z.discriminatedUnion('type', [
      /** A message taken: queued at the back, to run next (it ends the active run, or waits for the one ending), or steered into the active run. */
      z.object({ type: z.literal('message_taken'), messageId: z.string(), runNumber: z.number().int().positive(), delivery: z.enum(['queued', 'next', 'steered']), whenBusy: busyPolicySchema() }),
      /** A message whose id the session took already: answered with that run, nothing queued. */
      z.object({ type: z.literal('message_repeated'), messageId: z.string(), runNumber: z.number().int().positive() }),
      /** A later message ends the active run (its whenBusy). */
      z.object({ type: z.literal('run_ending'), runNumber: z.number().int().positive(), by: z.enum(['interrupt', 'rollback']), messageId: z.string() }),
      z.object({ type: z.literal('run_started'), runNumber: z.number().int().positive(), workflowId: z.string(), messageId: z.string().optional() }),
      z.object({ type: z.literal('run_ended'), runNumber: z.number().int().positive(), status: z.string(), endedBy: z.enum(['interrupt', 'rollback']).optional() }),
      /** A steered message the run's planner saw. */
      z.object({ type: z.literal('steer_delivered'), messageId: z.string(), runNumber: z.number().int().positive() }),
      /** A steered message the run did not see (it ended first, or was rolled back): it runs as its own run. */
      z.object({ type: z.literal('steer_requeued'), messageId: z.string(), fromRun: z.number().int().positive(), runNumber: z.number().int().positive() }),
      z.object({ type: z.literal('queue_edited'), action: z.enum(['edit', 'drop', 'front']), messageId: z.string(), reason: z.string().optional() }),
    ]),
  ),
);
export type SessionEvent = z.infer<ReturnType<typeof sessionEventSchema>>;
/** A session event before the session numbers and times it. */
export type SessionEventDraft = SessionEvent extends infer E ? (E extends unknown ? Omit<E, 'seq' | 'at'> : never) : never;

/**
 * A message id the session took, and the run it became; its status once the run ended (the
 * session answers a retry of it with this when the run's own record is no longer carried).
 */
const rememberedMessageSchema = builtOnce(() =>
  z.object({
    messageId: z.string(),
    runNumber: z.number().int().positive(),
    status: runRecordSchema().shape.status.optional(),
    /** Steered into run `runNumber`, which another message started (since 1.0.0). */
    steered: z.literal(true).optional(),
  }),
);
export type RememberedMessage = z.infer<ReturnType<typeof rememberedMessageSchema>>;

/** Input of the session workflow; also what it carries across continue-as-new. */
export const sessionInputSchema = builtOnce(() =>
  z.object({
    schemaVersion: z.literal(sessionSchemaVersion).default(sessionSchemaVersion),
    agent: z.string().min(1),
    /** Whose session it is: its runs take it (see RunInput.tenant). */
    tenant: tenantIdSchema().optional(),
    sessionState: jsonObjectSchema().default({}),
    /** The conversation so far (user messages and final answers), newest last. */
    history: z.array(messageSchema()).default([]),
    policy: runPolicySchema().partial().optional(),
    confirmation: confirmationPolicySchema().optional(),
    labels: z.record(z.string(), z.string()).default({}),
    /** Messages kept in `history`; older ones are dropped (compaction). */
    maxHistoryMessages: z.number().int().positive().default(200),
    /** Runs per workflow execution before the session continues as new. */
    runsPerExecution: z.number().int().positive().default(100),
    /** Carried across continue-as-new. */
    runs: z.array(runRecordSchema()).default([]),
    queue: z.array(queuedMessageSchema()).default([]),
    nextRunNumber: z.number().int().positive().default(1),
    /**
     * Worker versioning: the version (`deployment.buildId`) the session left by continuing as new
     * to follow a new current version. An execution that is still on it (an operator's override
     * pins the session there) does not try again.
     */
    movedFrom: z.string().optional(),
    /** What the session's runs used in all (since 1.0.0; carried across continue-as-new). */
    usage: sessionUsageSchema().optional(),
    /**
     * The ids of its last messages, oldest first (at most `maxRememberedMessageIds`, see
     * workflows/sessions/message-ids.ts; since 1.0.0): a message with one of them is not queued again.
     */
    messageIds: z.array(rememberedMessageSchema()).optional(),
    /** Its latest decisions (at most `maxSessionEvents`, see workflows/sessions/session-events.ts; since 1.0.0), oldest first. */
    events: z.array(sessionEventSchema()).optional(),
    /** The seq of its last event. */
    lastEventSeq: z.number().int().nonnegative().optional(),
    /** What the session does with a message that arrives while a run is active (see busyPolicySchema); a message may say otherwise. */
    whenBusy: busyPolicySchema().default('enqueue'),
  }),
);
export type SessionInput = z.input<ReturnType<typeof sessionInputSchema>>;
export type ParsedSessionInput = z.output<ReturnType<typeof sessionInputSchema>>;

/** Payload of sendMessage: the next user turn of the conversation. */
export const sessionMessageSchema = builtOnce(() =>
  z.object({
    content: z.string().min(1, 'the message must not be empty'),
    /** Planner options for this turn's run (e.g. a script). */
    plannerOptions: jsonValueSchema().optional(),
    /**
     * The message's id (see messageIdSchema): a message whose id the session already took is not
     * queued again; the session answers the record of the run that took it. Without it the
     * session gives the message its own id, `m-<runNumber>`.
     */
    messageId: messageIdSchema().optional(),
    /** What to do when a run of the session is active, for this message (default: the session's `whenBusy`). */
    whenBusy: busyPolicySchema().optional(),
    /**
     * The agent the sender expects the session to run: a session of another agent refuses the
     * message, queueing nothing (what a send that opens the session when needed sends, so it never
     * lands in another agent's session of the same id).
     */
    agent: z.string().min(1).optional(),
  }),
);
export type SessionMessage = z.input<ReturnType<typeof sessionMessageSchema>>;
export type ParsedSessionMessage = z.output<ReturnType<typeof sessionMessageSchema>>;

/** A snapshot of a session. */
export const sessionReportSchema = builtOnce(() =>
  z.object({
    agent: z.string(),
    /** Whose session it is, when it has a tenant. */
    tenant: z.string().optional(),
    open: z.boolean(),
    sessionState: jsonObjectSchema(),
    historyLength: z.number().int(),
    /** Runs of the current execution and the ones carried over (most recent last, at most 50). */
    runs: z.array(runRecordSchema()),
    /** What all its runs used: tokens, and money in the workers' currency (`unknownCalls`: calls of unknown cost). */
    usage: sessionUsageSchema().optional(),
    /** What it does with a message that arrives while a run is active (since 1.0.0). */
    whenBusy: busyPolicySchema().optional(),
    /** The messages that wait for their runs, next first (since 1.0.0). */
    queue: queueViewSchema().optional(),
  }),
);
export type SessionReport = z.infer<ReturnType<typeof sessionReportSchema>>;

/**
 * Every operation on a session, one row each (see contracts/operations.ts): the session workflow
 * registers their handlers from it, and the API server derives their routes
 * (`POST /api/sessions/:id/<path>`, server/operations.ts).
 */
export const sessionOperationMessages = {
  /**
   * Queues the next user turn; answers the record of the run that will handle it. A message whose
   * `messageId` the session already took answers that run's record instead, and queues nothing.
   */
  sendMessage: operation({
    kind: 'session',
    payload: sessionMessageSchema,
    answer: runRecordSchema,
    update: defineUpdate<SessionRunRecord, [unknown]>('sendMessage'),
  }),
  /** Closes the session after the queued runs; it then completes with its final state. */
  close: operation({ kind: 'session', signal: defineSignal<[]>('closeSession') }),
  /** Edits, drops or moves to the front a message that waits for its run; answers the queue as it is then. */
  editQueue: operation({
    kind: 'session',
    payload: queueEditSchema,
    answer: queueViewSchema,
    update: defineUpdate<SessionQueueView, [unknown]>('editQueue'),
  }),
} as const;

/** The name of an operation on a session. */
export type SessionOperationName = keyof typeof sessionOperationMessages;

/** Queues the next user turn; answers the workflow id of the run that will handle it (the `sendMessage` row). */
export const sendMessageUpdate = sessionOperationMessages.sendMessage.update;
/** The session's state, history size and runs. */
export const sessionQuery = defineQuery<SessionReport>('session');
/** The session's events after a seq (0: all it keeps), oldest first, and its last seq. */
export const sessionEventsQuery = defineQuery<{ events: SessionEvent[]; lastSeq: number }, [number?]>('sessionEvents');
/** Closes the session after the queued runs; it then completes with its final state (the `close` row). */
export const closeSessionSignal = sessionOperationMessages.close.signal;

/**
 * A session's usage after one more run: its tokens and its money in the session's currency (the
 * first priced run's); a run in another currency, or with calls of unknown cost, adds those
 * calls as of unknown cost.
 */
export function withRunUsage(usage: SessionUsage | undefined, cost: CostReport): SessionUsage {
  const total = usage ?? { runs: 0, tokens: 0, cost: 0, costUnknownCalls: 0 };
  const money = cost.cost;
  const sameCurrency = !money?.currency || !total.currency || money.currency === total.currency;
  const priced = money && sameCurrency ? money.used : 0;
  const unknown = money ? (sameCurrency ? (money.unknownCalls ?? 0) : cost.modelCalls.used) : cost.modelCalls.used;
  const currency = total.currency ?? (sameCurrency ? money?.currency : undefined);
  return {
    runs: total.runs + 1,
    tokens: total.tokens + cost.tokens.used,
    cost: total.cost + priced,
    ...(currency ? { currency } : {}),
    costUnknownCalls: total.costUnknownCalls + unknown,
  };
}
