import { z } from 'zod';
import { builtOnce } from './lazy';
import { interventionSchema } from './control';
import { runEventSchema } from './events';
import { jsonObjectSchema } from './json';
import { messageSchema } from './messages';
import { finalizeReasonSchema, terminationSchema } from './plan';
import { interventionPointSchema } from './points';
import { runPolicySchema, type RunInput } from './run';
import { toolOutputSchema, writtenOutputSchema } from './tools';
import { toolsetSnapshotSchema } from './mcp';

/** Version of {@link carriedRunStateSchema}. Bump it, and keep a fixture of the old one, on any change. */
export const carriedRunStateVersion = 1;

/**
 * Everything a run carries into its next execution when it continues as new at a turn
 * boundary: the conversation, budgets used, control and session state, and the tail of the
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
    }),
    finalizeReason: finalizeReasonSchema().optional(),
    pendingTermination: terminationSchema().optional(),
    turn: z.number().int().nonnegative(),
    /** When the first execution of the run started (ISO). */
    startedAt: z.string(),
    /** Time spent paused or waiting for humans so far. */
    idleMs: z.number().nonnegative(),
    instructionsOverride: z.string().optional(),
    control: z.object({
      pauseReason: z.string().optional(),
      breakpoints: z.array(z.object({ point: interventionPointSchema(), tool: z.string().optional(), once: z.boolean() })),
      blockedTools: z.array(z.object({ name: z.string(), reason: z.string() })),
      queued: z.array(z.object({ id: z.number().int().positive(), intervention: interventionSchema() })),
      nextInterventionId: z.number().int().positive(),
    }),
    alwaysApproved: z.array(z.string()),
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
