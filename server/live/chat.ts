/**
 * The AI SDK chat protocol over a run: a `Chat` of the `ai` package (`useChat`, or `AbstractChat`
 * without a framework) with `DefaultChatTransport({ api: '<server>/api/chat' })` and the run's
 * workflow id as the chat id follows the run as one assistant message, and answers its
 * approvals in the protocol's own way (`addToolApprovalResponse`, sent with the message).
 *
 * - `GET /api/chat/:id/stream` (the transport's resume): the run's UI message stream from its
 *   start, up to the point where it waits for people or to its end.
 * - `POST /api/chat`: applies the approval responses of the message as decisions, then
 *   continues the message from where its last response ended, to the next such point.
 *
 * A response ends where the run's open turn waits for approvals ({@link ApprovalPause}), as a
 * model's response ends at its approval requests. Each ends with message metadata
 * `{ durableAgents: { lastSeq } }`: the last event the message shows, where the next response
 * continues.
 */
import { z } from 'zod';
import type { RunEvent } from '../../contracts';
import { approvalDigest } from '../../contracts/approval-digest';
import { quoted } from '../../contracts/safe-text';
import type { Principal } from '../auth';
import type { ServerContext } from '../context';
import { ApiError } from '../errors';
import { runOperationsByName } from '../operations';
import { route, type AnyRoute } from '../routes';
import { runReferenceSchema } from '../api/ids';
import { pausingResponse } from './pausing-response';
import { ensureRun } from './routes';
import { streamFeed, type StreamFeedOptions } from './sse';
import { UiMessageProjection, uiMessageFrames, uiMessageStreamHeaders, type UiMessageChunk } from './ui-message-stream';

/** A message of the chat, as the client sends it; parts are read only where they answer approvals. */
export const chatMessageSchema = z.object({
  id: z.string().max(1_000),
  role: z.enum(['system', 'user', 'assistant']),
  metadata: z.unknown().optional(),
  parts: z.array(z.object({ type: z.string() }).passthrough()).max(100_000),
});

export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** The body `DefaultChatTransport` posts. */
export const chatRequestSchema = z
  .object({
    /** The chat id: the run's workflow id. */
    id: runReferenceSchema,
    messages: z.array(chatMessageSchema).min(1).max(100_000),
    trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
    messageId: z.string().max(1_000).optional(),
  })
  .passthrough();
type ChatRequest = z.infer<typeof chatRequestSchema>;

/** A tool part the user answered (`addToolApprovalResponse`): state `approval-responded`. */
const respondedPartSchema = z.object({
  state: z.literal('approval-responded'),
  approval: z.object({ id: z.string().min(1).max(1_000), approved: z.boolean(), reason: z.string().max(10_000).optional() }),
});

/**
 * The approval responses of a message, by approval id (= the call's id), each with the digest of
 * the call its part showed (its tool and `input`): the run refuses a response whose call now waits
 * with other arguments.
 */
export function approvalResponses(message: ChatMessage): { toolCallId: string; approved: boolean; reason?: string; digest?: string }[] {
  return message.parts.flatMap((part) => {
    if (!(part.type.startsWith('tool-') || part.type === 'dynamic-tool')) return [];
    const responded = respondedPartSchema.safeParse(part);
    if (!responded.success) return [];
    const { id, approved, reason } = responded.data.approval;
    const shown = part as { type: string; toolName?: unknown; input?: unknown };
    const name = part.type === 'dynamic-tool' ? (typeof shown.toolName === 'string' ? shown.toolName : undefined) : part.type.slice('tool-'.length);
    const digest = name !== undefined && shown.input !== undefined ? approvalDigest(name, shown.input) : undefined;
    return [{ toolCallId: id, approved, ...(reason ? { reason } : {}), ...(digest ? { digest } : {}) }];
  });
}

/**
 * Applies the approval responses of a chat message to run `workflowId` as decisions by `principal`
 * (responses to approvals no longer pending are skipped: a resent request, or decided elsewhere);
 * answers the ids of the calls the message answered.
 */
export async function answerApprovals(ctx: ServerContext, workflowId: string, message: ChatMessage, principal: Principal): Promise<string[]> {
  const { decide } = runOperationsByName;
  const responses = approvalResponses(message);
  if (responses.length === 0) return [];
  const pending = new Set((await ctx.agents.pendingInputs(workflowId, { subAgents: false })).approvals.map((a) => a.toolCallId));
  for (const { toolCallId, approved, reason, digest } of responses) {
    if (!pending.has(toolCallId)) continue;
    await decide.perform(ctx.agents, workflowId, decide.body.parse({ decision: approved ? 'approve' : 'reject', toolCallId, ...(reason ? { reason } : {}), ...(digest ? { digest } : {}) }), principal);
  }
  return responses.map((r) => r.toolCallId);
}

/** The last event a message shows, from the metadata the previous response ended with. */
export function shownUpTo(metadata: unknown): number {
  const lastSeq = (metadata as { durableAgents?: { lastSeq?: unknown } } | undefined)?.durableAgents?.lastSeq;
  return typeof lastSeq === 'number' && Number.isInteger(lastSeq) && lastSeq >= 0 ? lastSeq : 0;
}

/** The message a request continues: `messageId`'s, else the last one; an assistant message. */
function continuedMessage(body: ChatRequest): ChatMessage {
  if (body.trigger === 'regenerate-message') {
    throw new ApiError('invalid_input', 'a run does not regenerate a response: rewind it instead (POST /api/runs/:id/fork)');
  }
  const message = body.messageId === undefined ? body.messages.at(-1) : body.messages.find((m) => m.id === body.messageId);
  if (!message) throw new ApiError('invalid_input', `body.messageId: no message ${quoted(body.messageId ?? '')} in body.messages`);
  if (message.role !== 'assistant') {
    throw new ApiError('invalid_input', `body.messages: the chat continues the run's assistant message, got a ${message.role} message; start a run with POST /api/runs`);
  }
  return message;
}

/** What a chat response says besides the run's parts (a session chat's: which run, where it starts). */
export interface ChatResponseOptions {
  /** The approvals this request answered. */
  readonly answered?: readonly string[];
  /** More of the message's metadata under `durableAgents`, sent at the start. */
  readonly metadata?: Readonly<Record<string, unknown>>;
  /** See PausingResponseOptions: where the response starts showing the run, and what ends it before the run does. */
  readonly liveFrom?: (event: RunEvent) => boolean;
  readonly endBefore?: (event: RunEvent) => boolean;
}

/**
 * The SSE frames of one chat response: the run's UI message chunks after `shownSeq`, until the run
 * waits for people ({@link pausingResponse}), each end with the message metadata of the last event
 * sent.
 */
export function chatResponse(messageId: string, shownSeq: number, options: ChatResponseOptions = {}): Pick<StreamFeedOptions, 'headers' | 'opening' | 'render' | 'stopAfter' | 'closing'> {
  const projection = new UiMessageProjection(messageId);
  const metadata = (lastSeq: number, more: Record<string, unknown> = {}): UiMessageChunk => ({ type: 'message-metadata', messageMetadata: { durableAgents: { lastSeq, ...more } } });
  const opening = options.metadata ? [{ type: 'message-metadata' as const, messageMetadata: { durableAgents: options.metadata } }] : [];
  return {
    headers: uiMessageStreamHeaders,
    opening: () => uiMessageFrames([...projection.start(), ...opening]),
    ...pausingResponse({
      projection,
      shownSeq,
      answered: options.answered ?? [],
      end: (item, lastSeq) => [metadata(lastSeq), ...projection.item(item)],
      pause: (lastSeq) => [metadata(lastSeq), ...projection.pause()],
      frames: uiMessageFrames,
      ...(options.liveFrom ? { liveFrom: options.liveFrom } : {}),
      ...(options.endBefore
        ? {
            endBefore: options.endBefore,
            // The run goes on answering the message steered into it, in that message's response.
            handOff: (lastSeq: number, event: RunEvent) => [metadata(lastSeq, event.type === 'intervention_applied' && event.messageId ? { continuedBy: event.messageId } : {}), ...projection.pause()],
          }
        : {}),
    }),
    closing: () => [{ data: '[DONE]' }],
  };
}

/** The chat routes (AI SDK `DefaultChatTransport` with `api: '/api/chat'`). */
export function chatRoutes(ctx: ServerContext): AnyRoute[] {
  return [
    route({
      method: 'get',
      path: '/api/chat/:id/stream',
      access: 'viewer',
      queryToken: true,
      summary: 'An AI SDK chat resuming the run (chat id = workflow id): its UI message stream up to where it waits for people',
      description:
        'What `DefaultChatTransport` reads on resume: the run\'s UI message stream (as /api/runs/:id/ui-stream) from its start, ending where every call of the open turn ' +
        'has ended or waits for an approval, or at the run\'s end; with message metadata { durableAgents: { lastSeq } } before finish.',
      tags: ['live'],
      streams: 'text/event-stream',
      handle: async ({ params, c }) => {
        const workflowId = params.id as string;
        await ensureRun(ctx, workflowId);
        return streamFeed(c, ctx.live, workflowId, 0, chatResponse(workflowId, 0));
      },
    }),
    route({
      method: 'post',
      path: '/api/chat',
      access: 'operator',
      summary: 'An AI SDK chat answering the run\'s approvals (chat id = workflow id), then continuing its message',
      description:
        'The body `DefaultChatTransport` posts: { id: workflowId, messages, trigger, messageId }. Tool parts of the continued (last assistant) message in state ' +
        '`approval-responded` become decisions (approved → approve, else reject with the reason), by the token holder; responses to approvals no longer pending are ' +
        'ignored (a resent request, or decided elsewhere). The response continues the message after the lastSeq of its metadata, to the next point where the run waits ' +
        'for people or to its end. A user message is refused: runs start with POST /api/runs.',
      tags: ['live', 'human inputs'],
      body: chatRequestSchema,
      streams: 'text/event-stream',
      handle: async ({ body, c, principal }) => {
        const workflowId = body.id;
        const message = continuedMessage(body);
        const answered = await answerApprovals(ctx, workflowId, message, principal);
        if (answered.length === 0) await ensureRun(ctx, workflowId);
        return streamFeed(c, ctx.live, workflowId, 0, chatResponse(message.id, shownUpTo(message.metadata), { answered }));
      },
    }),
  ];
}
