import { z } from 'zod';
import { builtOnce } from './lazy';
import { interventionSchema } from './control';
import { runEventSchema } from './events';
import { jsonObjectSchema } from './json';
import { messageSchema } from './messages';
import { awaitSchema, finalizeReasonSchema, terminationSchema } from './plan';
import { interventionPointSchema } from './points';
import { runPolicySchema, type RunInput } from './run';
import { toolOutputSchema, toolRequestSchema, writtenOutputSchema } from './tools';
import { awaitAnswerSchema } from './hitl';
import { toolsetSnapshotSchema } from './mcp';

/** Version of {@link carriedRunStateSchema}. Bump it, and keep a fixture of the old one, on any change. */
export const carriedRunStateVersion = 1;

/**
 * A turn a run continued as new in the middle of, while it waited for people or held at a pause
 * (see docs/internals/continue-while-waiting.md): a tool turn whose calls have all ended, wait
 * for their approval or have not begun; an open await barrier; or a tool turn that has ended
 * (held at after_tool). The next execution goes on with the turn where it stopped.
 */
export const carriedOpenTurnSchema = builtOnce(() =>
  z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('tool_calls'),
      /** The turn's calls as planned, in call order. */
      requests: z.array(toolRequestSchema()),
      /** Outputs of the calls that have ended, recorded (events, session changes) but not yet in the transcript. */
      ended: z.array(toolOutputSchema()),
      /** Calls waiting for a human decision: the call as it stands (edited by hooks or operators) and when it was asked. */
      waiting: z.array(z.object({ request: toolRequestSchema(), requestedAt: z.string() })),
    }),
    z.object({
      kind: z.literal('await'),
      awaitId: z.string(),
      spec: awaitSchema(),
      /** Answers given so far. */
      answers: z.array(awaitAnswerSchema()),
      deadline: z.string().optional(),
    }),
    z.object({
      kind: z.literal('turn_ended'),
      /** The turn's outputs, already in the transcript and counted. */
      outputs: z.array(toolOutputSchema()),
    }),
  ]),
);
export type CarriedOpenTurn = z.infer<ReturnType<typeof carriedOpenTurnSchema>>;

/**
 * Everything a run carries into its next execution when it continues as new at a turn
 * boundary (or, since 1.0.0, in a turn that waits for people: `openTurn`): the conversation, budgets used, control and session state, and the tail of the
 * event log, so clients see one run with one gap-free event sequence.
 */
export const carriedRunStateSchema = builtOnce(() =>
  z.object({
    schemaVersion: z.literal(carriedRunStateVersion),
    policy: runPolicySchema(),
    messages: z.array(messageSchema()),
    toolOutputs: z.array(toolOutputSchema()),
    plannerState: jsonObjectSchema(),
    sessionState: jsonObjectSchema(),
    usage: z.object({
      iterations: z.number().int().nonnegative(),
      toolCalls: z.number().int().nonnegative(),
      consecutiveFailures: z.number().int().nonnegative(),
      tokens: z.number().nonnegative(),
      modelCalls: z.number().int().nonnegative(),
      tokensUnknownCalls: z.number().int().nonnegative().optional(),
      cost: z.number().nonnegative().optional(),
      costCurrency: z.string().optional(),
      costUnknownCalls: z.number().int().nonnegative().optional(),
    }),
    finalizeReason: finalizeReasonSchema().optional(),
    pendingTermination: terminationSchema().optional(),
    turn: z.number().int().nonnegative(),
    /** When the first execution of the run started (ISO). */
    startedAt: z.string(),
    /** Time spent paused or waiting for humans so far. */
    idleMs: z.number().nonnegative(),
    instructionsOverride: z.string().optional(),
    /** Ids of injected messages the planner saw so far (see RunResult.steered). */
    steered: z.array(z.string()).optional(),
    control: z.object({
      pauseReason: z.string().optional(),
      breakpoints: z.array(z.object({ point: interventionPointSchema(), tool: z.string().optional(), once: z.boolean() })),
      blockedTools: z.array(z.object({ name: z.string(), reason: z.string() })),
      queued: z.array(z.object({ id: z.number().int().positive(), intervention: interventionSchema() })),
      nextInterventionId: z.number().int().positive(),
    }),
    alwaysApproved: z.array(z.string()),
    /**
     * The run's place in its tenant's account (since 1.0.0): its execution after a continue-as-new
     * keeps it without joining again, and with the hold its model calls were under. For the run of
     * `workflowId` only: a fork (another id) joins as a new run.
     */
    tenantAccount: z
      .object({
        workflowId: z.string(),
        hold: z.object({ limit: z.enum(['tokensPerDay', 'tokensPerMonth', 'costPerDay', 'costPerMonth']), reason: z.string(), until: z.string() }).optional(),
        /** Usage records the account refused (it was at its limit of signals): sent again by the next execution. */
        unsent: z
          .array(
            z.object({
              workflowId: z.string(),
              tokens: z.number(),
              modelCalls: z.number(),
              tokensUnknownCalls: z.number().optional(),
              cost: z.number().optional(),
              currency: z.string().optional(),
            }),
          )
          .optional(),
      })
      .optional(),
    /** The newest events; seqs continue from the last one. */
    events: z.array(runEventSchema()),
    nextSeq: z.number().int().positive(),
    /** How many times the run has continued as new. */
    generation: z.number().int().positive(),
    /**
     * How many times the transcript was compacted (oldest messages dropped to bound the carried
     * state). Planners that count messages they already sent start over when it changes.
     */
    transcriptEpoch: z.number().int().nonnegative().default(0),
    /** The run's log epoch (see eventPageSchema.epoch); absent in states written before 0.3.0. */
    logEpoch: z.string().optional(),
    /** Written output paths (write-once); absent in states written before 0.5.0 and in runs that wrote none. */
    outputs: z.record(z.string(), writtenOutputSchema()).optional(),
    /** The tool lists of the agent's MCP toolsets, by toolset name; absent for agents without toolsets. */
    toolsets: z.record(z.string(), toolsetSnapshotSchema()).optional(),
    /** Toolsets whose list must be fetched again before the next planner turn, and why. */
    toolsetRefresh: z.record(z.string(), z.enum(['list_changed', 'requested'])).optional(),
    /** The turn the previous execution stopped in while it waited for people; absent when it stopped at a turn boundary. */
    openTurn: carriedOpenTurnSchema().optional(),
  }),
);
export type CarriedRunState = z.infer<ReturnType<typeof carriedRunStateSchema>>;

/**
 * The input of a run that starts from a carried state (continue-as-new, fork): the original
 * input without its conversation and session state, which travel in `continued` only. The
 * schema needs one message; `note` stands in for the conversation (older workers read the
 * carried state too).
 */
export function continuationInput(input: RunInput, continued: CarriedRunState, note = 'the conversation continues in the carried state'): RunInput {
  const rest: RunInput = { ...input };
  delete rest.history;
  delete rest.sessionState;
  return { ...rest, messages: [{ role: 'user', content: `[${note}]` }], continued };
}
