/**
 * The AG-UI protocol over a run: an AG-UI client (`HttpAgent` of `@ag-ui/client` with
 * `url: '<server>/api/ag-ui'` and the run's workflow id as `threadId`) follows the run in AG-UI
 * runs and answers its approvals with AG-UI's interrupts: a response ends where the run waits
 * for approvals (`RUN_FINISHED` with one interrupt per approval, id = the tool call's id), and the
 * client's next request carries the answers as `resume` entries.
 *
 * Where a response continues: the agent state the previous one ended with
 * (`STATE_SNAPSHOT` `{ durableAgents: { lastSeq } }`), which `HttpAgent` sends back as `state`
 * with every request. A request without it streams the run from its start.
 */
import { z } from 'zod';
import { quoted } from '../../contracts/safe-text';
import { authorize, type Principal } from '../auth';
import type { ServerContext } from '../context';
import { ApiError } from '../errors';
import { runOperationsByName } from '../operations';
import { route, type AnyRoute } from '../routes';
import { runReferenceSchema } from '../api/ids';
import type { RunEvent } from '../../contracts';
import { AgUiProjection, agUiFrames, type AgUiProjectionOptions } from './ag-ui';
import { resumeDigest, shownCallDigests } from './ag-ui-digest';
import { pausingResponse } from './pausing-response';
import { streamFeed, type StreamFeedOptions } from './sse';

const idSchema = z.string().min(1).max(1_000);

/** An answer to one interrupt (AG-UI `ResumeEntry`). */
const resumeEntrySchema = z.object({
  interruptId: idSchema,
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

/** The body `HttpAgent` posts (AG-UI `RunAgentInput`); messages are read only for a new user message. */
export const agUiRunInputSchema = z
  .object({
    /** The run's workflow id. */
    threadId: runReferenceSchema,
    runId: idSchema,
    messages: z.array(z.object({ id: z.string().max(1_000), role: z.string().max(100) }).passthrough()).max(100_000),
    tools: z.array(z.unknown()).max(1_000).optional(),
    context: z.array(z.unknown()).max(1_000).optional(),
    state: z.unknown().optional(),
    forwardedProps: z.unknown().optional(),
    resume: z.array(resumeEntrySchema).max(1_000).optional(),
  })
  .passthrough();
type AgUiRunInput = z.infer<typeof agUiRunInputSchema>;

const stateSchema = z.object({ durableAgents: z.object({ lastSeq: z.number().int().nonnegative() }) });

/** The last event the client has: the `lastSeq` of its state, else 0 (it has nothing). */
export function shownUpTo(state: unknown): number {
  if (typeof state !== 'object' || state === null || !('durableAgents' in state)) return 0;
  const parsed = stateSchema.safeParse(state);
  if (!parsed.success) throw new ApiError('invalid_input', `body.state.durableAgents: expected { lastSeq: <seq> } as the last response left it; got ${quoted(JSON.stringify(state.durableAgents) ?? '', 100)}`);
  return parsed.data.durableAgents.lastSeq;
}

/** A decision body of `POST /api/runs/:id/decisions` from a resume entry: no payload approves, a cancelled interrupt rejects. */
function decisionOf(entry: z.infer<typeof resumeEntrySchema>, index: number, digest: string | undefined): unknown {
  const where = `body.resume[${index}]`;
  const bound = digest === undefined ? {} : { digest };
  if (entry.status === 'cancelled') return { decision: 'reject', toolCallId: entry.interruptId, reason: 'the approval was cancelled', ...bound };
  if (entry.payload === undefined) return { decision: 'approve', toolCallId: entry.interruptId, ...bound };
  if (typeof entry.payload !== 'object' || entry.payload === null || Array.isArray(entry.payload)) {
    throw new ApiError('invalid_input', `${where}.payload: expected a decision such as { "decision": "approve" } or { "decision": "reject", "reason": "…" }`);
  }
  // The decision is the token holder's: `by` is not taken from the payload.
  return { ...bound, ...entry.payload, toolCallId: entry.interruptId, by: undefined };
}

/** The tool call ids of the approvals the run waits for now (its own, not its sub-agent runs'). */
export async function pendingApprovals(ctx: ServerContext, workflowId: string): Promise<string[]> {
  return (await waitingDigests(ctx, workflowId)).map((a) => a.toolCallId);
}

async function waitingDigests(ctx: ServerContext, workflowId: string): Promise<{ toolCallId: string; digest?: string }[]> {
  return (await ctx.agents.pendingInputs(workflowId, { subAgents: false })).approvals;
}

/** Applies the request's resume entries as decisions of run `workflowId`, all or none: each must answer an approval the run waits for. */
export async function applyResume(ctx: ServerContext, workflowId: string, body: Pick<AgUiRunInput, 'resume' | 'messages'>, principal: Principal): Promise<string[]> {
  const entries = body.resume ?? [];
  if (entries.length === 0) return [];
  authorize(principal, 'operator');
  const { decide } = runOperationsByName;
  const shown = shownCallDigests(body.messages);
  const decisions = entries.map((entry, index) => {
    const parsed = decide.body.safeParse(decisionOf(entry, index, resumeDigest(entry, shown)));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ApiError('invalid_input', `body.resume[${index}].payload.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'not a decision'}`);
    }
    return parsed.data as { toolCallId: string; digest?: string };
  });
  const waiting = await waitingDigests(ctx, workflowId);
  const pending = waiting.map((a) => a.toolCallId);
  decisions.forEach(({ toolCallId, digest }, index) => {
    const now = waiting.find((a) => a.toolCallId === toolCallId);
    if (!now) {
      throw new ApiError(
        'rejected',
        `body.resume[${index}].interruptId: the run waits for no approval of ${quoted(toolCallId, 100)} (decided already, or never asked); ` +
          `it waits for ${pending.length === 0 ? 'none' : pending.map((id) => quoted(id, 100)).join(', ')}`,
      );
    }
    // All or none: a stale answer is refused before any other is applied (the run refuses it too).
    if (digest !== undefined && now.digest !== undefined && digest !== now.digest) {
      throw new ApiError(
        'rejected',
        `body.resume[${index}]: call ${quoted(toolCallId, 100)} waits with other arguments than the ones shown: the decision is for ${digest}, ` +
          `the call waiting is ${now.digest}; read the run again and answer its new interrupt`,
      );
    }
  });
  for (const decision of decisions) await decide.perform(ctx.agents, workflowId, decision, principal);
  return decisions.map((d) => d.toolCallId);
}

/**
 * The SSE frames of one AG-UI run over the feed: the run's events after `shownSeq` until it waits
 * for approvals or ends ({@link pausingResponse}). `answered`: the approvals this request answered;
 * `waitingNow`: those the run waits for, when it answered none.
 */
export function agUiResponse(options: {
  threadId: string;
  runId: string;
  shownSeq: number;
  answered?: readonly string[];
  waitingNow?: readonly string[];
  /** A session's thread: the state and message ids of the run it shows (AgUiProjectionOptions). */
  projection?: AgUiProjectionOptions;
  /** See PausingResponseOptions: where the response starts showing the run, and what hands it over to another response. */
  liveFrom?: (event: RunEvent) => boolean;
  endBefore?: (event: RunEvent) => boolean;
}): Pick<StreamFeedOptions, 'opening' | 'render' | 'stopAfter'> {
  const projection = new AgUiProjection(options.threadId, options.runId, options.projection);
  return {
    opening: () => agUiFrames(projection.start()),
    ...pausingResponse({
      projection,
      shownSeq: options.shownSeq,
      answered: options.answered,
      waitingNow: options.waitingNow,
      end: (item, lastSeq) => [...projection.item(item), ...projection.finish(lastSeq, item.status)],
      pause: (lastSeq, pending) => projection.pause(lastSeq, pending),
      frames: agUiFrames,
      ...(options.liveFrom ? { liveFrom: options.liveFrom } : {}),
      ...(options.endBefore
        ? {
            endBefore: options.endBefore,
            // The run goes on answering the message steered into it, in that message's response.
            handOff: (lastSeq: number, event: RunEvent) => projection.pause(lastSeq, [], event.type === 'intervention_applied' && event.messageId ? { continuedBy: event.messageId } : {}),
          }
        : {}),
    }),
  };
}

/** The AG-UI route (`HttpAgent` with `url: '/api/ag-ui'`). */
export function agUiRoutes(ctx: ServerContext): AnyRoute[] {
  return [
    route({
      method: 'post',
      path: '/api/ag-ui',
      access: 'viewer',
      summary: 'The run as an AG-UI agent (threadId = workflow id): its events up to where it waits for approvals, which resume entries answer',
      description:
        'The body `HttpAgent` posts (AG-UI 1.0 RunAgentInput). The response is one AG-UI run as SSE `data: <event JSON>`: RUN_STARTED, the run\'s events after ' +
        'state.durableAgents.lastSeq (0 without it) as STEP_*, TEXT_MESSAGE_*, TOOL_CALL_* and CUSTOM events, then STATE_SNAPSHOT { durableAgents: { lastSeq } } and ' +
        'RUN_FINISHED: outcome interrupt (one interrupt per pending approval, id = toolCallId) where the run waits for approvals, success (result: the final answer) ' +
        'or cancelled (killed) at its end; RUN_ERROR for a failed run. `resume` entries (operator role) become decisions by the token holder before the stream ' +
        'continues: resolved without payload approves, a payload is a decision ({ decision: approve | reject | edit | replace, reason?, args?, name?, always? }), ' +
        'cancelled rejects; an entry for an approval the run does not wait for refuses the whole request (422). tools and context are not used (the agent ' +
        'defines its tools); a new user message is refused: runs start with POST /api/runs.',
      tags: ['live', 'human inputs'],
      body: agUiRunInputSchema,
      streams: 'text/event-stream',
      handle: async ({ body, c, principal }) => {
        const workflowId = body.threadId;
        if (body.messages.at(-1)?.role === 'user') {
          throw new ApiError('invalid_input', 'body.messages: the thread is a run, which takes no new user message here; start a run with POST /api/runs');
        }
        const shownSeq = shownUpTo(body.state);
        // Either asks the run what it waits for (a query: it writes nothing to the run, and an
        // unknown run answers 404 before any stream opens).
        const answered = await applyResume(ctx, workflowId, body, principal);
        const waitingNow = answered.length > 0 ? undefined : await pendingApprovals(ctx, workflowId);
        return streamFeed(c, ctx.live, workflowId, 0, agUiResponse({ threadId: workflowId, runId: body.runId, shownSeq, answered, waitingNow }));
      },
    }),
  ];
}
