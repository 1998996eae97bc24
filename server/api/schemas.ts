import { z } from 'zod';
import { isPageToken } from '../../client/run-list';
import { runIdSchema, sessionIdSchema, workflowIdSchema } from './ids';
import { noWorkerSchema } from './no-worker';
import { costReportSchema, interventionSchema, runInputSchema, runResultSchema, runStatusReportSchema, runStatusSchema, sessionInputSchema, tenantIdSchema } from '../../contracts';

/**
 * Body of POST /api/runs: a run input and, optionally, the run's workflow id, whether it may be
 * the id of a closed run (`reuseClosedId`; refused with 409 `already_exists` otherwise), and
 * `allowNoWorker` (start even when no worker has polled the task queue lately).
 */
export const startRunBodySchema = runInputSchema
  .unwrap()
  .omit({ continued: true })
  .extend({ workflowId: workflowIdSchema.optional(), reuseClosedId: z.boolean().optional(), allowNoWorker: z.boolean().optional() });

/** The ids of a run just started. */
export const startedRunSchema = z.object({ workflowId: z.string(), runId: z.string() });

/** Query of GET /api/runs. */
export const listRunsQuerySchema = z.object({
  agent: z.string().min(1).optional(),
  /** Only this tenant's runs (AgentTenant); a token scoped to a tenant lists only its own. */
  tenant: tenantIdSchema().optional(),
  status: runStatusSchema.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  pageToken: z.string().refine(isPageToken, 'not a page token of this listing (use nextPageToken of the previous page)').optional(),
  /** `true`: add each run's turn, iterations and cost (one status query or result read per run). */
  details: z.enum(['true', 'false']).optional(),
});

/** One run of a listing. */
export const runSummarySchema = z.object({
  workflowId: z.string(),
  runId: z.string(),
  agent: z.string().optional(),
  /** Whose run it is, when it has a tenant. */
  tenant: z.string().optional(),
  /** AgentStatus as the run last reported it; else Temporal's status in lower case. */
  status: z.string(),
  /** Temporal's execution status (RUNNING, COMPLETED, FAILED, TERMINATED, …). */
  temporalStatus: z.string(),
  startTime: z.string(),
  closeTime: z.string().optional(),
  /** Whether the run waits for an approval or an answer right now (status `awaiting`). */
  waitingForHuman: z.boolean(),
  /** Set when the run's memo is encrypted with a key this server lacks: listed from its search attributes only. */
  encrypted: z.object({ keyId: z.string() }).optional(),
  /** Earlier executions of the run (rewound or continued as new) folded into this row by the page; absent when none. */
  earlierExecutions: z.number().int().positive().optional(),
  /** With `details=true`: the turn of a running run. */
  turn: z.number().int().nonnegative().optional(),
  /** With `details=true`: tool turns completed (running or completed runs). */
  iterations: z.number().int().nonnegative().optional(),
  /** With `details=true`: budget used against each cap (running or completed runs). */
  cost: costReportSchema.optional(),
});
export type RunSummary = z.infer<typeof runSummarySchema>;

/** A page of runs. */
export const runListSchema = z.object({ runs: z.array(runSummarySchema), nextPageToken: z.string().optional() });

/** The worker version a run is on (worker versioning); all null for unversioned workers. */
export const runWorkerVersionSchema = z.object({
  deploymentName: z.string().nullable(),
  buildId: z.string().nullable(),
  behavior: z.enum(['PINNED', 'AUTO_UPGRADE']).nullable(),
  override: z.union([z.object({ behavior: z.literal('PINNED'), deploymentName: z.string(), buildId: z.string() }), z.object({ behavior: z.literal('AUTO_UPGRADE') })]).nullable(),
});

/** What a run's history says when no worker can answer its status query. */
export const historyStatusSchema = z.object({
  source: z.literal('history'),
  workflowId: z.string(),
  runId: z.string(),
  agent: z.string().nullable(),
  status: z.string(),
  workflowStatus: z.string(),
  turns: z.number().int(),
  toolCalls: z.number().int(),
  modelCalls: z.number().int(),
  historyLength: z.number().int(),
  startTime: z.string(),
  closeTime: z.string().nullable(),
  workerVersion: runWorkerVersionSchema,
  failure: z.string().optional(),
  result: runResultSchema.optional(),
  /** Why no worker answered: its task queue and when a worker last polled it. */
  noWorker: noWorkerSchema.optional(),
});

/** GET /api/runs/:id: the status query, or when no worker can answer it, the run's history. */
export const runStatusResponseSchema = z.union([runStatusReportSchema, historyStatusSchema]);

/** `?runId=`: which execution of a run to read (default: the latest). */
export const runIdQuerySchema = z.object({ runId: runIdSchema.optional() });

/** A turn boundary a rewind or fork goes back to. */
export const checkpointSchema = z.object({
  turn: z.number().int().nonnegative(),
  eventId: z.number().int().positive(),
  time: z.string(),
  summary: z.object({ toolCalls: z.array(z.string()), modelCalls: z.number().int(), signals: z.array(z.string()), updates: z.array(z.string()) }),
});

/** Body of POST /api/runs/:id/rewind. */
export const rewindBodySchema = z.object({
  toTurn: z.number().int().nonnegative(),
  reapply: z.boolean().optional(),
  with: z.array(interventionSchema).optional(),
  reason: z.string().max(2000).optional(),
  runId: runIdSchema.optional(),
});

/** `?runId=` of GET /api/runs/:id/rewinds: the execution to start from (a Temporal run id), default the latest. */
export const rewindsQuerySchema = runIdQuerySchema;

/** A rewind of a run as its history records it (GET /api/runs/:id/rewinds). */
export const runRewindSchema = z.object({
  runId: z.string(),
  replacedRunId: z.string(),
  time: z.string(),
  turn: z.number().int().nonnegative().optional(),
  eventId: z.number().int().positive(),
  reason: z.string(),
  corrections: z.array(interventionSchema),
});

/** What a rewind answers. */
export const rewindResultSchema = z.object({ runId: z.string(), checkpoint: checkpointSchema, corrections: z.enum(['atomic', 'none']) });

/** Body of POST /api/runs/:id/fork. */
export const forkBodySchema = z.object({
  toTurn: z.number().int().positive(),
  /** Whose run the fork is (its work is charged to it); default the forked run's. An admin token without a tenant may name one. */
  tenant: tenantIdSchema().optional(),
  workflowId: workflowIdSchema.optional(),
  with: z.array(interventionSchema).optional(),
  runId: runIdSchema.optional(),
});

/** What a fork answers. */
export const forkResultSchema = z.object({ workflowId: z.string(), runId: z.string(), checkpoint: checkpointSchema });

/** A run's Temporal history as JSON (the format of `temporal workflow show --output json`). */
export const historyJsonSchema = z.looseObject({ events: z.array(z.unknown()) });

/** Body of POST /api/sessions: the session's id and what every run of it starts from. */
export const openSessionBodySchema = sessionInputSchema
  .unwrap()
  .pick({ agent: true, tenant: true, sessionState: true, history: true, policy: true, confirmation: true, labels: true, maxHistoryMessages: true, runsPerExecution: true, whenBusy: true })
  .extend({ sessionId: sessionIdSchema });

/** Query of GET /api/sessions. */
export const listSessionsQuerySchema = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(50), tenant: tenantIdSchema().optional() });

/** One session of a listing; `status` is `open` while the session runs. */
export const sessionSummarySchema = z.object({
  sessionId: z.string(),
  workflowId: z.string(),
  agent: z.string().optional(),
  tenant: z.string().optional(),
  status: z.string(),
  startTime: z.string(),
});

