import { z } from 'zod';
import { builtOnce } from './lazy';
import { interventionPointSchema } from './points';
import { jsonValueSchema } from './json';
import { awaitItemSchema, finalResponseSchema, finalizeReasonSchema, plannerNoteSchema } from './plan';
import { runStatusSchema } from './run';
import { retryHintSchema, toolErrorSchema } from './tools';

/** The fields of every event (built with the schema that uses them, not when the module loads). */
function eventBase() {
  return {
    /** 1-based, gap-free, increasing: readers resume from the last seq they saw. */
    seq: z.number().int().positive(),
    /** ISO time on the workflow clock. */
    at: z.string(),
  };
}

/** One entry of a run's event log. */
export const runEventSchema = builtOnce(() => {
  const base = eventBase();
  return z.discriminatedUnion('type', [
    z.object({ ...base, type: z.literal('run_started'), agent: z.string(), messageCount: z.number().int() }),
    z.object({ ...base, type: z.literal('status_changed'), from: runStatusSchema(), to: runStatusSchema() }),
    z.object({
      ...base,
      type: z.literal('plan'),
      turn: z.number().int(),
      decision: z.enum(['tool_calls', 'final', 'await']),
      toolCalls: z
        .array(z.object({ toolCallId: z.string(), name: z.string(), dependsOn: z.array(z.string()).optional(), outputPath: z.string().optional() }))
        .optional(),
    }),
    z.object({ ...base, type: z.literal('note'), turn: z.number().int(), note: plannerNoteSchema() }),
    z.object({
      ...base,
      type: z.literal('tool_call'),
      turn: z.number().int(),
      toolCallId: z.string(),
      name: z.string(),
      args: jsonValueSchema(),
      /** Started while the model was still answering (early dispatch). */
      early: z.boolean().optional(),
    }),
    z.object({
      ...base,
      type: z.literal('tool_result'),
      turn: z.number().int(),
      toolCallId: z.string(),
      name: z.string(),
      status: z.enum(['ok', 'error', 'cancelled']),
      resultBytes: z.number().int(),
      resultOmitted: z.boolean().optional(),
      /** The result, when its JSON is at most 2,000 characters (contracts/result-in-event.ts). */
      result: jsonValueSchema().optional(),
      /** Else the start of its JSON; `resultCut` says it goes on (`resultBytes` in all). */
      resultPreview: z.string().optional(),
      resultCut: z.literal(true).optional(),
      error: toolErrorSchema().optional(),
      retryHint: retryHintSchema().optional(),
      durationMs: z.number(),
    }),
    z.object({ ...base, type: z.literal('finalize_requested'), reason: finalizeReasonSchema(), message: z.string() }),
    z.object({ ...base, type: z.literal('final'), response: finalResponseSchema() }),
    z.object({ ...base, type: z.literal('run_failed'), errorType: z.string(), message: z.string() }),
    z.object({ ...base, type: z.literal('signal_rejected'), signal: z.string(), reason: z.string() }),
    z.object({ ...base, type: z.literal('pause_requested'), reason: z.string() }),
    z.object({ ...base, type: z.literal('paused'), point: interventionPointSchema(), turn: z.number().int(), reason: z.string() }),
    z.object({ ...base, type: z.literal('resumed'), pausedMs: z.number().nonnegative(), reason: z.string().optional() }),
    z.object({ ...base, type: z.literal('intervention_queued'), id: z.number().int(), kind: z.string() }),
    z.object({
      ...base,
      type: z.literal('intervention_applied'),
      /** Operator intervention id; absent for agent hooks. */
      id: z.number().int().optional(),
      source: z.enum(['operator', 'hook']),
      kind: z.string(),
      /** The safe point where it took effect; absent for changes that act at once (blocks, breakpoints). */
      point: interventionPointSchema().optional(),
      detail: z.string(),
      /** A session message steered into the run (`whenBusy: steer`): its id, on the event that shows the planner has it (since 1.0.0). */
      messageId: z.string().optional(),
    }),
    z.object({ ...base, type: z.literal('intervention_rejected'), id: z.number().int(), kind: z.string(), reason: z.string() }),
    z.object({ ...base, type: z.literal('budget_changed'), change: z.record(z.string(), z.number()) }),
    /**
     * A planner's model calls of this turn ended, or an approval judge's (`judge`) (since 1.0.0):
     * their tokens and, when the worker's price table priced them, their cost; `costUnknown` when
     * it did not.
     */
    z.object({
      ...base,
      type: z.literal('model_usage'),
      turn: z.number().int(),
      model: z.string().optional(),
      modelCalls: z.number().int().nonnegative(),
      tokens: z.number().int().nonnegative(),
      tokensUnknown: z.boolean().optional(),
      cost: z.object({ amount: z.number().nonnegative(), currency: z.string() }).optional(),
      costUnknown: z.boolean().optional(),
      /** Set when an approval judge made the call, not the planner: its evaluator. */
      judge: z.string().optional(),
    }),
    /** A wait that is not work (a rewind's reset, no workflow worker) was not charged to the time budget. */
    z.object({ ...base, type: z.literal('budget_credited'), waitedMs: z.number().int().nonnegative(), reason: z.string() }),
    z.object({ ...base, type: z.literal('kill_requested'), reason: z.string(), source: z.enum(['operator', 'cancellation']) }),
    z.object({ ...base, type: z.literal('run_terminated'), reason: z.string(), cancelledCalls: z.array(z.string()) }),
    z.object({ ...base, type: z.literal('await_opened'), awaitId: z.string(), turn: z.number().int(), items: z.array(awaitItemSchema()), deadline: z.string().optional() }),
    z.object({ ...base, type: z.literal('await_answered'), awaitId: z.string(), itemId: z.string(), answer: jsonValueSchema() }),
    z.object({ ...base, type: z.literal('await_closed'), awaitId: z.string(), outcome: z.enum(['answered', 'timed_out', 'cancelled']) }),
    /** `digest`: what the approval is bound to (contracts/approval-digest.ts; since 1.0.0). */
    z.object({ ...base, type: z.literal('approval_requested'), turn: z.number().int(), toolCallId: z.string(), name: z.string(), args: jsonValueSchema(), digest: z.string().optional() }),
    z.object({
      ...base,
      type: z.literal('approval_decided'),
      toolCallId: z.string(),
      decision: z.enum(['approve', 'reject', 'edit', 'replace']),
      by: z.string().optional(),
      /** The approval digest the decision was made on, when it carried one (since 1.0.0). */
      digest: z.string().optional(),
      /** Set when approval rules decided, not a person: the rules' version and the rule (since 1.0.0). */
      rules: z.object({ version: z.string(), rule: z.string() }).optional(),
      /** The call as proposed, recorded when a decision changed it. */
      original: z.object({ name: z.string(), args: jsonValueSchema() }).optional(),
      /** The call as it will run (edit / replace). */
      updated: z.object({ name: z.string(), args: jsonValueSchema() }).optional(),
      reason: z.string().optional(),
      always: z.boolean().optional(),
    }),
    /** A judge rule's evaluator answered (or failed): its decision applies, or the call goes to a person (`escalated`) (since 1.0.0). */
    z.object({
      ...base,
      type: z.literal('approval_judged'),
      toolCallId: z.string(),
      evaluator: z.string(),
      rules: z.object({ version: z.string(), rule: z.string() }),
      verdict: z.enum(['approve', 'reject', 'escalate']),
      confidence: z.number().optional(),
      reason: z.string().optional(),
      escalated: z.boolean(),
      why: z.string().optional(),
    }),
    /**
     * The notice of a waiting call reached its receiver (`confirmation.notify`, since 1.0.0): which
     * notifier took it, on which attempt (a receiver that was down is tried again), the status it
     * answered, when the link in it expires and the key that signed its body.
     */
    z.object({
      ...base,
      type: z.literal('approval_notified'),
      toolCallId: z.string(),
      notifier: z.string(),
      attempt: z.number().int().positive(),
      status: z.number().int(),
      linkExpiresAt: z.string().optional(),
      keyId: z.string().optional(),
    }),
    /**
     * The run's approval rules were replaced (setApprovalRules); `decided`: the waiting calls they
     * decided at once; `children`: the open sub-agent runs they were passed on to (since 1.0.0).
     */
    z.object({ ...base, type: z.literal('approval_rules_changed'), version: z.string(), decided: z.array(z.string()), children: z.array(z.string()).optional() }),
    /** A call started early that the model's final answer did not contain (or the run ended): cancelled, not in the transcript. */
    z.object({ ...base, type: z.literal('early_call_discarded'), turn: z.number().int(), toolCallId: z.string(), name: z.string(), reason: z.string() }),
    /** A call's success wrote a write-once output path. */
    z.object({ ...base, type: z.literal('output_written'), turn: z.number().int(), path: z.string(), toolCallId: z.string() }),
    /** A call to an agent tool started its sub-agent run. */
    z.object({ ...base, type: z.literal('child_started'), turn: z.number().int(), toolCallId: z.string(), workflowId: z.string(), agent: z.string() }),
    z.object({
      ...base,
      type: z.literal('child_ended'),
      toolCallId: z.string(),
      workflowId: z.string(),
      status: z.enum(['completed', 'failed', 'terminated']),
    }),
    z.object({
      ...base,
      type: z.literal('tools_updated'),
      /** The agent's toolset (see mcpToolset) whose snapshot changed. */
      toolset: z.string(),
      server: z.string(),
      /** Content hash of the server's tool list; calls and model turns from now on use this list. */
      version: z.string(),
      previousVersion: z.string().optional(),
      /** Names of the tools the run now has from this toolset (after filters). */
      tools: z.array(z.string()),
      /** `initial`: first fetch; `list_changed`: the server said its list changed; `requested`: an operator asked. */
      reason: z.enum(['initial', 'list_changed', 'requested']),
    }),
    /**
     * A model call failed for an outage or rate limits (`errorType`) `attempts` times: the run waits
     * for the provider, retrying until it answers or the time budget is spent. A `note` (kind
     * `model_available`) says when it answered again.
     */
    z.object({ ...base, type: z.literal('model_waiting'), turn: z.number().int(), model: z.string(), attempts: z.number().int().positive(), errorType: z.string(), error: z.string() }),
    /** Listing the tools of an MCP toolset failed because its server is unavailable: the run waits for it, as for a model. */
    z.object({ ...base, type: z.literal('mcp_waiting'), turn: z.number().int(), toolset: z.string(), server: z.string(), attempts: z.number().int().positive(), error: z.string() }),
    /**
     * The run waits for its tenant's quota (since 1.0.0): at its start (`phase: start`, a
     * concurrency or start-rate quota; `position` in the tenant's queue), or before a model call
     * (`phase: model`, a token or money quota spent until `until`, when its period rolls over).
     */
    z.object({ ...base, type: z.literal('quota_waiting'), tenant: z.string(), phase: z.enum(['start', 'model']), reason: z.string(), turn: z.number().int().optional(), position: z.number().int().positive().optional(), until: z.string().optional() }),
    /** The wait for the tenant's quota ended: the run was admitted, or the hold on model calls was lifted. */
    z.object({ ...base, type: z.literal('quota_cleared'), tenant: z.string(), phase: z.enum(['start', 'model']), waitedMs: z.number().int().nonnegative() }),
    z.object({ ...base, type: z.literal('session_state_changed'), toolCallId: z.string(), changes: z.record(z.string(), jsonValueSchema().nullable()) }),
  ]);
});
export type RunEvent = z.infer<ReturnType<typeof runEventSchema>>;
export type RunEventType = RunEvent['type'];

/** Distributes Omit over a union so each event variant keeps its own fields. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event before the run log assigns its seq and time. */
export type RunEventDraft = DistributiveOmit<RunEvent, 'seq' | 'at'>;

/** A page of events returned by the events query. */
export const eventPageSchema = builtOnce(() =>
  z.object({
    events: z.array(runEventSchema()),
    /** Pass as `afterSeq` to read the next page. */
    nextAfterSeq: z.number().int().nonnegative(),
    status: runStatusSchema(),
    /**
     * Set when events after `afterSeq` but before this seq are gone: a long run that continued
     * as new carries only the newest events. Readers that fell that far behind see the gap.
     */
    missingBefore: z.number().int().positive().optional(),
    /**
     * The run's log epoch: the same across continue-as-new, new after a rewind (a reset starts a
     * new run whose events after the rewind point replace the old ones under the same seqs).
     * A follower that sees it change must re-sync (AgentClient.follow does).
     */
    epoch: z.string().optional(),
  }),
);
export type EventPage = z.infer<ReturnType<typeof eventPageSchema>>;

/** Arguments of the events query. */
export const eventsQueryArgsSchema = builtOnce(() =>
  z.object({
    afterSeq: z.number().int().nonnegative().default(0),
    limit: z.number().int().positive().max(1000).default(200),
  }),
);
