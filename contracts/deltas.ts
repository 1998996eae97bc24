import { z } from 'zod';

/**
 * One token delta of a model call: a piece of the answer's text or of a tool call's
 * arguments, as the provider streamed it. Deltas travel beside the workflow (worker →
 * server → subscribers), never through its history: they are a preview, and the answer the
 * model activity returns stays the only record.
 */
export const tokenDeltaSchema = z.object({
  /** The run's workflow id. */
  workflowId: z.string().min(1).max(1000),
  /**
   * The run's execution (Temporal run id) the model call belongs to: activity ids start again in
   * each execution, so with `activityId` and `attempt` it names one model call, which a delta
   * signature binds it to ({@link deltaCallSignatureSchema}).
   */
  runId: z.string().min(1).max(1000).optional(),
  /** The model activity's id; with `attempt`, names one model call. */
  activityId: z.string().min(1).max(1000),
  /** The activity attempt (1-based): a retried call streams again from scratch. */
  attempt: z.number().int().positive(),
  /** The run's turn the call plans, when known. */
  turn: z.number().int().nonnegative().optional(),
  /** Order of the deltas of one attempt, from 0. */
  seq: z.number().int().nonnegative(),
  kind: z.enum(['text', 'tool-args']),
  /** The text or argument fragment. */
  text: z.string().max(100_000),
  /** For `tool-args`: the call's index in the answer, its id and name once streamed. */
  callIndex: z.number().int().nonnegative().optional(),
  toolCallId: z.string().max(1000).optional(),
  toolName: z.string().max(1000).optional(),
  /** When the worker published it (ms since the epoch), for latency figures. */
  at: z.number().nonnegative(),
});
export type TokenDelta = z.infer<typeof tokenDeltaSchema>;

/**
 * A worker's word that a run's event log grew: followers read the events query at once instead
 * of waiting for their next paced read. Travels beside the workflow like deltas; a lost one only
 * delays a follower until its next read.
 */
export const eventsAnnouncementSchema = z.object({
  /** The run's workflow id. */
  workflowId: z.string().min(1).max(1000),
  /** The seq of its newest event. */
  lastSeq: z.number().int().nonnegative(),
});
export type EventsAnnouncement = z.infer<typeof eventsAnnouncementSchema>;

/**
 * A worker's word that the deltas of one model call are its own: an HMAC-SHA256, with a delta key
 * workers and API servers share, over the call (the JSON array `[workflowId, runId, activityId,
 * attempt]`), base64url. Only the worker running the call's activity knows all four and the key,
 * so a leaked publisher token alone cannot put words in a run's mouth.
 */
export const deltaCallSignatureSchema = z.object({
  workflowId: z.string().min(1).max(1000),
  runId: z.string().min(1).max(1000),
  activityId: z.string().min(1).max(1000),
  attempt: z.number().int().positive(),
  /** The id of the key that signed (keys rotate: servers keep older ones). */
  keyId: z.string().min(1).max(100),
  signature: z.string().min(1).max(200),
});
export type DeltaCallSignature = z.infer<typeof deltaCallSignatureSchema>;

/** What a worker posts to `POST /api/deltas`. */
export const deltaBatchSchema = z.object({
  deltas: z.array(tokenDeltaSchema).max(10_000),
  /** One per model call whose deltas the batch carries, when the worker signs them. */
  signatures: z.array(deltaCallSignatureSchema).max(10_000).optional(),
  /** Runs whose event logs grew (one per run, the newest seq). */
  events: z.array(eventsAnnouncementSchema).max(10_000).optional(),
  /** Deltas this publisher dropped so far (buffer full, server slow or away). */
  dropped: z.number().int().nonnegative().optional(),
});
export type DeltaBatch = z.infer<typeof deltaBatchSchema>;
