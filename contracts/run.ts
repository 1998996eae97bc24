import { z } from 'zod';
import { builtOnce } from './lazy';
import { jsonObjectSchema, jsonValueSchema } from './json';
import { interventionPointSchema } from './points';
import { confirmationPolicySchema } from './hitl';
import { inputMessageSchema, messageSchema } from './messages';
import { finalResponseSchema, finalizeReasonSchema } from './plan';
import { defaultToolResultByteBudget } from './tools';
import { tenantIdSchema } from './tenant';

/** Caps and execution policy of a run. Every cap, when reached, triggers one Finalize turn. */
export const runPolicySchema = builtOnce(() =>
  z.object({
    /** Planner turns that dispatched tool calls. */
    maxIterations: z.number().int().positive(),
    maxToolCalls: z.number().int().positive(),
    maxConsecutiveFailures: z.number().int().positive(),
    /** Wall-clock budget of the run, measured on the workflow clock. */
    timeBudgetMs: z.number().int().positive(),
    maxTokens: z.number().int().positive().optional(),
    maxModelCalls: z.number().int().positive().optional(),
    /**
     * Money the run's model calls may cost, in the currency of the workers' price table
     * (`model.prices` of the plugin). Calls of unknown cost do not count toward it.
     */
    maxCost: z.number().positive().optional(),
    /** Run the calls of one plan concurrently (true) or one after another (false). */
    parallelToolCalls: z.boolean(),
    /**
     * LLM agents: start calls of `startEarly` tools while the model is still streaming its
     * answer. Off by default; never with an after_llm breakpoint or hooks in the way.
     */
    earlyDispatch: z.boolean().optional(),
    /** At most this many tool activities of a turn run at once (others wait to be dispatched); no limit when absent. */
    maxConcurrentToolCalls: z.number().int().positive().optional(),
    /** Tool results above this many JSON bytes are omitted from workflow payloads. */
    toolResultByteBudget: z.number().int().positive(),
    /** Continue as new at the next turn boundary once history has this many events (or Temporal suggests it). */
    continueAsNewAfterEvents: z.number().int().positive(),
    /**
     * Continue as new once this execution has accepted this many updates (Temporal refuses
     * updates past `history.maxTotalUpdates`, 2,000 by default), also while the run waits for
     * people. Default {@link defaultContinueAsNewAfterUpdates}.
     */
    continueAsNewAfterUpdates: z.number().int().positive().optional(),
    /** The same for signals (Temporal's `history.maximumSignalsPerExecution`). Default {@link defaultContinueAsNewAfterSignals}. */
    continueAsNewAfterSignals: z.number().int().positive().optional(),
  }),
);
export type RunPolicy = z.infer<ReturnType<typeof runPolicySchema>>;

/** Updates an execution accepts before it continues as new: half of Temporal's default limit, so bursts in flight fit. */
export const defaultContinueAsNewAfterUpdates = 1_000;
/** Signals an execution takes before it continues as new: half of Temporal's default limit of 10,000. */
export const defaultContinueAsNewAfterSignals = 5_000;

/** Defaults applied beneath agent and run overrides. */
export const defaultRunPolicy: RunPolicy = {
  maxIterations: 25,
  maxToolCalls: 100,
  maxConsecutiveFailures: 3,
  timeBudgetMs: 30 * 60_000,
  parallelToolCalls: true,
  toolResultByteBudget: defaultToolResultByteBudget,
  continueAsNewAfterEvents: 10_000,
};

/** Input of the `agentRun` workflow. */
export const runInputSchema = builtOnce(() =>
  z.object({
    /** Registered agent name. */
    agent: z.string().min(1),
    messages: z.array(inputMessageSchema()).min(1, 'a run needs at least one message'),
    /** Earlier conversation (e.g. the previous runs of a session), placed before `messages`. */
    history: z.array(messageSchema()).default([]),
    sessionId: z.string().optional(),
    /**
     * Whose run it is (a customer of a deployment that serves many): listed and filtered by the
     * AgentTenant search attribute, and carried to its sub-agent runs and continued executions.
     */
    tenant: tenantIdSchema().optional(),
    sessionState: jsonObjectSchema().default({}),
    policy: runPolicySchema().partial().optional(),
    labels: z.record(z.string(), z.string()).default({}),
    /** Breakpoints active from the first step: e.g. `[{ point: 'after_llm', once: true }]` to review the first plan. */
    breakpoints: z
      .array(z.object({ point: interventionPointSchema(), tool: z.string().optional(), once: z.boolean().default(false) }))
      .default([]),
    /** Which tool calls wait for a human decision, besides tools flagged `requiresConfirmation`. */
    confirmation: confirmationPolicySchema().optional(),
    /** Agent-specific planner options (e.g. a script for the scripted planner), parsed by the agent. */
    plannerOptions: jsonValueSchema().optional(),
    /** Set when the run is a sub-agent: the parent run and the call it answers, and the call path from the root run. */
    parent: z.object({ workflowId: z.string(), toolCallId: z.string(), path: z.array(z.string()) }).optional(),
    /**
     * Set by the run itself when it continues as new (see carriedRunStateSchema, checked when
     * the run starts); callers leave it out.
     */
    continued: z.unknown().optional(),
  }),
);
export type RunInput = z.input<ReturnType<typeof runInputSchema>>;
export type ParsedRunInput = z.output<ReturnType<typeof runInputSchema>>;

/** Lifecycle states of a run. */
export const runStatusSchema = builtOnce(() =>
  z.enum([
    'running',
    'pausing',
    'paused',
    'awaiting',
    'completed',
    'failed',
    'terminated',
  ]),
);
export type RunStatus = z.infer<ReturnType<typeof runStatusSchema>>;

/** Whether a run status is final: completed, failed or terminated (any other still runs, perhaps waiting for a human). */
export function isTerminalRunStatus(status: string): boolean {
  return status === 'completed' || status === 'failed' || status === 'terminated';
}

/** Used / max / remaining of one budget. `max` is absent when the budget is unlimited. */
export const budgetLineSchema = builtOnce(() =>
  z.object({
    used: z.number().nonnegative(),
    max: z.number().nonnegative().optional(),
    remaining: z.number().optional(),
    /** Tokens and cost: model calls whose usage (or price) is unknown; `used` leaves them out. */
    unknownCalls: z.number().int().nonnegative().optional(),
    /** Cost only: the currency of `used` and `max`. */
    currency: z.string().optional(),
  }),
);
export type BudgetLine = z.infer<ReturnType<typeof budgetLineSchema>>;

/** What a run has consumed against each budget. */
export const costReportSchema = builtOnce(() =>
  z.object({
    iterations: budgetLineSchema(),
    toolCalls: budgetLineSchema(),
    consecutiveFailures: budgetLineSchema(),
    timeMs: budgetLineSchema(),
    tokens: budgetLineSchema(),
    modelCalls: budgetLineSchema(),
    /** Money, from the workers' price table; absent in reports of runs recorded before. */
    cost: budgetLineSchema().optional(),
    elapsedMs: z.number().nonnegative(),
  }),
);
export type CostReport = z.infer<ReturnType<typeof costReportSchema>>;

/** Output of the `agentRun` workflow. */
export const runResultSchema = builtOnce(() =>
  z.object({
    status: z.enum(['completed', 'terminated']),
    final: finalResponseSchema().optional(),
    finalizeReason: finalizeReasonSchema().optional(),
    iterations: z.number().int().nonnegative(),
    cost: costReportSchema(),
    sessionState: jsonObjectSchema(),
    /** seq of the last event; `events` queries after it return nothing. */
    lastEventSeq: z.number().int().nonnegative(),
    /** Ids of the injected messages (`inject_message` with a `messageId`) the planner saw, in order; absent when none. */
    steered: z.array(z.string()).optional(),
  }),
);
export type RunResult = z.infer<ReturnType<typeof runResultSchema>>;

/** A sub-agent run, as its parent knows it. */
export const childRunSchema = builtOnce(() =>
  z.object({
    toolCallId: z.string(),
    workflowId: z.string(),
    agent: z.string(),
    turn: z.number().int().nonnegative(),
    /**
     * The parent records running, completed, failed or terminated; `AgentClient.status` shows a
     * running child's own status instead (awaiting, paused, …), from its AgentStatus.
     */
    status: runStatusSchema(),
  }),
);
export type ChildRun = z.infer<ReturnType<typeof childRunSchema>>;

/**
 * Payload of the `childWaiting` signal a sub-agent run sends its parent when it starts or stops
 * waiting for people (an approval, an answer, a pause, or a run below it that waits so). The
 * parent's time budget stands still while every call it has in flight is such a child.
 */
export const childWaitingSchema = builtOnce(() =>
  z.object({
    /** The parent's call the child answers. */
    toolCallId: z.string().min(1).max(1_000),
    /** The child's workflow id: the parent checks it is the run it started for that call. */
    workflowId: z.string().min(1).max(1_000),
    waiting: z.boolean(),
  }),
);
export type ChildWaiting = z.infer<ReturnType<typeof childWaitingSchema>>;

/**
 * A model provider or MCP server a run waits for because it is down or rate-limits the run. The
 * run retries without an attempt limit (backing off up to a minute between attempts, or as the
 * provider's Retry-After says) until it answers or the run's time budget is spent.
 */
export const providerWaitSchema = builtOnce(() =>
  z.object({
    /** `quota`: the tenant's quota (a start waiting for a slot, model calls held while a token or money quota is spent). */
    kind: z.enum(['model', 'mcp', 'quota']),
    /** The model, the MCP server, or the tenant. */
    name: z.string(),
    turn: z.number().int().nonnegative(),
    /** When the run began to wait (workflow clock, ISO). */
    since: z.string(),
    /** Attempts that had failed when the run began to wait (the retries after them happen on the server); 0 for a quota. */
    attempts: z.number().int().nonnegative(),
    /** Type of the last failure seen: `model_unavailable`, `model_rate_limited`, `mcp_unavailable`; `quota_queued` (a start), `quota_spent` (model calls). */
    errorType: z.string(),
    /** Its message, cut to a few hundred characters. */
    error: z.string(),
  }),
);
export type ProviderWait = z.infer<ReturnType<typeof providerWaitSchema>>;

/** A snapshot of a run for status queries. */
export const runStatusReportSchema = builtOnce(() =>
  z.object({
    status: runStatusSchema(),
    agent: z.string(),
    /** Whose run it is, when it has a tenant. */
    tenant: z.string().optional(),
    /** Tool turns completed. */
    iteration: z.number().int().nonnegative(),
    turn: z.number().int().nonnegative(),
    /** Calls of the current plan: `dispatched` false while they wait for their safe point. */
    pendingCalls: z.array(z.object({ toolCallId: z.string(), name: z.string(), dispatched: z.boolean() })),
    finalizeReason: finalizeReasonSchema().optional(),
    pausedAt: z.object({ point: interventionPointSchema(), turn: z.number().int() }).optional(),
    pauseReason: z.string().optional(),
    sessionState: jsonObjectSchema(),
    control: z.object({
      blockedTools: z.array(z.string()),
      breakpoints: z.array(z.object({ point: interventionPointSchema(), tool: z.string().optional(), once: z.boolean() })),
      queuedInterventions: z.array(z.object({ id: z.number().int(), kind: z.string() })),
    }),
    cost: costReportSchema(),
    lastEventSeq: z.number().int().nonnegative(),
    /** Sub-agent runs this run started (agent tools), oldest first. */
    children: z.array(childRunSchema()).optional(),
    /** Set when this run is a sub-agent. */
    parent: z.object({ workflowId: z.string(), toolCallId: z.string(), path: z.array(z.string()) }).optional(),
    /** Set while the run waits for its model provider or an MCP server (an outage or rate limits). */
    waitingFor: providerWaitSchema().optional(),
  }),
);
export type RunStatusReport = z.infer<ReturnType<typeof runStatusReportSchema>>;
