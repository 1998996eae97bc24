/**
 * The AI SDK chat protocol over a session: a `Chat` of the `ai` package (`useChat`, or
 * `AbstractChat`) whose chat id is a session id, on `DefaultChatTransport` with
 * `api: '<server>/api/sessions/<id>/chat'`, sends each user message as it is typed, a second one
 * while the first is still answered included ("double-texting"); the session's `whenBusy` decides
 * what becomes of it, and the response shows the run that answers it as one assistant message
 * (the run chat's projection and pause at approvals, chat.ts).
 *
 * - `POST /api/sessions/:id/chat`: a request whose last message is a user message sends it to the
 *   session (`sendMessage`, message id = the UI message's id: a retried request sends nothing
 *   twice), opening the session when `agent` is given and it is not open; one whose last message is
 *   the assistant's answers its approvals and continues it.
 * - `GET /api/sessions/:id/chat/stream` (the transport's resume): the session's active run.
 *
 * What a response shows for each decision is session-chat-plan.ts's.
 */
import { z } from 'zod';
import type { RunEvent } from '../../contracts';
import { jsonValueSchema } from '../../contracts/json';
import { quoted } from '../../contracts/safe-text';
import { busyPolicySchema, messageIdSchema, parseSessionRunWorkflowId, type SessionMessage } from '../../contracts/session';
import type { ServerContext } from '../context';
import { ApiError } from '../errors';
import { route, type AnyRoute } from '../routes';
import { sessionIdSchema } from '../api/ids';
import { answerApprovals, chatMessageSchema, chatResponse, shownUpTo, type ChatMessage } from './chat';
import { ensureRun } from './routes';
import { followOf, isOtherSteer, isSteerOf, resumeTarget, answerMessageId, type SessionChatFollow } from './session-chat-plan';
import { sendSessionMessage, waitForRequeuedRun } from './session-send';
import { streamFeed, type FeedContinuation } from './sse';
import { uiMessageFrames } from './ui-message-stream';

/** The body `DefaultChatTransport` posts, with the session's fields (the transport's `body` option, or `sendMessage`'s). */
const sessionChatRequestSchema = z
  .object({
    /** The chat id: the session id. */
    id: sessionIdSchema,
    messages: z.array(chatMessageSchema).min(1).max(100_000),
    trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
    messageId: z.string().max(1_000).optional(),
    /** The agent of the session: a session that is not open is opened with it (update-with-start); one of another agent refuses the message. */
    agent: z.string().min(1).max(200).optional(),
    /** What the session does with the message if one of its runs is active (default: the session's `whenBusy`). */
    whenBusy: busyPolicySchema().optional(),
    /** Planner options of the message's run (e.g. a script). */
    plannerOptions: jsonValueSchema().optional(),
  })
  .passthrough();
type SessionChatRequest = z.infer<typeof sessionChatRequestSchema>;

/** What a session chat's message metadata says under `durableAgents`, besides `lastSeq`. */
const sessionChatMetadataSchema = z.object({ durableAgents: z.object({ workflowId: z.string(), messageId: z.string().optional() }).passthrough() });

/** The user message of a request, as the session takes it. */
function userMessage(body: SessionChatRequest, message: ChatMessage, index: number): SessionMessage & { messageId: string } {
  const id = messageIdSchema().safeParse(message.id);
  if (!id.success) throw new ApiError('invalid_input', `body.messages.${index}.id: ${id.error.issues[0]?.message ?? 'not a message id'} (the session takes it as the message id), got ${quoted(message.id, 100)}`);
  const content = message.parts
    .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
    .join('\n')
    .trim();
  if (content === '') throw new ApiError('invalid_input', `body.messages.${index}.parts: the user message has no text`);
  return {
    content,
    messageId: id.data,
    ...(body.whenBusy ? { whenBusy: body.whenBusy } : {}),
    ...(body.plannerOptions !== undefined ? { plannerOptions: body.plannerOptions } : {}),
  };
}

/** The session chat routes (AI SDK `DefaultChatTransport`, chat id = session id). */
export function sessionChatRoutes(ctx: ServerContext): AnyRoute[] {
  const { agents } = ctx;
  /** The run a steered message got when the run it went into ended before taking it, shown from its start. */
  const requeued = (sessionId: string, messageId: string, answerId: string) => async (): Promise<FeedContinuation | undefined> => {
    const record = await waitForRequeuedRun(ctx, sessionId, messageId);
    if (!record) return undefined;
    const feed = chatResponse(answerId, 0, { endBefore: (e) => isOtherSteer(e, messageId) });
    // The message's metadata names the run it follows now.
    let first = true;
    return {
      workflowId: record.workflowId,
      render: (item) => {
        const frames = feed.render(item);
        if (!first) return frames;
        first = false;
        return [...uiMessageFrames([{ type: 'message-metadata', messageMetadata: { durableAgents: sessionMetadata(sessionId, messageId, record.workflowId, 'next') } }]), ...frames];
      },
      stopAfter: feed.stopAfter,
    };
  };

  /** The response that answers user message `messageId`, by what became of it. */
  const answer = (sessionId: string, messageId: string, follow: SessionChatFollow): Parameters<typeof streamFeed>[4] => {
    const answerId = answerMessageId(messageId);
    const endBefore = (e: RunEvent) => isOtherSteer(e, messageId);
    switch (follow.type) {
      case 'run':
        return chatResponse(answerId, 0, { metadata: sessionMetadata(sessionId, messageId, follow.workflowId, follow.delivery), endBefore });
      case 'steered': {
        // Whether the run took the message: if it ends without, the session gives the message a run of its own.
        let taken = false;
        const liveFrom = (e: RunEvent) => (taken = isSteerOf(e, messageId));
        return {
          ...chatResponse(answerId, 0, { metadata: sessionMetadata(sessionId, messageId, follow.workflowId, 'steered'), liveFrom, endBefore }),
          continueWith: () => (taken ? Promise.resolve(undefined) : requeued(sessionId, messageId, answerId)()),
        };
      }
      case 'dropped':
        throw new ApiError('run_ended', `session ${sessionId}: message ${quoted(messageId, 100)} was dropped from the queue before it ran (run ${follow.workflowId})`);
    }
  };

  return [
    route({
      method: 'get',
      path: '/api/sessions/:id/chat/stream',
      access: 'viewer',
      queryToken: true,
      summary: "An AI SDK chat resuming a session (chat id = session id): its active run's UI message stream",
      description:
        'What `DefaultChatTransport` reads on resume (point `prepareReconnectToStreamRequest` here): the run that runs (else the next queued) from its start, as the answer to the ' +
        'message it took, to where it waits for people or to its end. 204 when no run is active or queued.',
      tags: ['live', 'sessions'],
      streams: 'text/event-stream',
      handle: async ({ params, c }) => {
        const sessionId = params.id as string;
        const target = resumeTarget(await agents.session(sessionId).status());
        if (!target) return new Response(null, { status: 204 });
        const messageId = target.messageId ?? target.workflowId;
        return streamFeed(c, ctx.live, target.workflowId, 0, chatResponse(answerMessageId(messageId), 0, { metadata: sessionMetadata(sessionId, messageId, target.workflowId, 'queued') }));
      },
    }),
    route({
      method: 'post',
      path: '/api/sessions/:id/chat',
      access: 'operator',
      summary: 'An AI SDK chat over a session (chat id = session id): sends a user message, or answers the approvals of the last answer, and streams the run that answers it',
      description:
        'The body `DefaultChatTransport` posts: { id: sessionId, messages, trigger, messageId }, and optionally `agent` (opens the session with it when it is not open, ' +
        'update-with-start), `whenBusy` (enqueue | reject | interrupt | rollback | steer: what the session does with the message while a run is active) and `plannerOptions`. ' +
        'A last message from the user is sent to the session with its UI message id as the message id (a retried request sends nothing twice, and shows the same run again). ' +
        'The response is one assistant message (`answer-<message id>`): enqueue, interrupt and rollback show the run of the message from its start once it starts; steer shows the ' +
        'active run from the event that says its planner has the message (the response that showed the run until then ends there, with `continuedBy` in its metadata); reject ' +
        'while a run is active is 409 `session_busy` naming the run. A last message from the assistant answers its approvals (`addToolApprovalResponse`) and continues it. ' +
        "The message's metadata: { durableAgents: { sessionId, workflowId, messageId, delivery, lastSeq } }.",
      tags: ['live', 'human inputs', 'sessions'],
      body: sessionChatRequestSchema,
      streams: 'text/event-stream',
      handle: async ({ params, body, c, principal }) => {
        const sessionId = params.id as string;
        if (body.id !== sessionId) throw new ApiError('invalid_input', `body.id: the chat id is the session id, ${quoted(sessionId, 100)}; got ${quoted(body.id, 100)}`);
        if (body.trigger === 'regenerate-message') throw new ApiError('invalid_input', `body.trigger: session ${sessionId} does not regenerate an answer; send a new message, or rewind the run (POST /api/runs/:id/fork)`);
        // The message the request is about: `messageId`'s (the transport names the answer whose approvals it sends), else the last one.
        const index = body.messageId === undefined ? body.messages.length - 1 : body.messages.findIndex((m) => m.id === body.messageId);
        const last = body.messages[index];
        if (!last) throw new ApiError('invalid_input', `body.messageId: no message ${quoted(body.messageId ?? '', 100)} in body.messages`);
        if (last.role === 'user' && body.messageId !== undefined) {
          throw new ApiError('invalid_input', `body.messageId: session ${sessionId} does not edit a message it was sent; send a new message (with whenBusy: interrupt or rollback to replace the answer in progress)`);
        }
        if (last.role === 'user') {
          const message = userMessage(body, last, index);
          const record = await sendSessionMessage(ctx, sessionId, message, body.agent, 'body.agent');
          return streamFeed(c, ctx.live, record.workflowId, 0, answer(sessionId, message.messageId, followOf(record, message.messageId)));
        }
        if (last.role !== 'assistant') throw new ApiError('invalid_input', `body.messages.${index}.role: a session chat takes a user message, or its answer with approval responses; got a ${last.role} message`);
        const metadata = sessionChatMetadataSchema.safeParse(last.metadata);
        const workflowId = metadata.success ? metadata.data.durableAgents.workflowId : undefined;
        if (workflowId === undefined || parseSessionRunWorkflowId(workflowId)?.sessionWorkflowId !== agents.session(sessionId).workflowId) {
          throw new ApiError('invalid_input', `body.messages.${index}.metadata.durableAgents.workflowId: the answer names no run of session ${sessionId} (got ${quoted(String(workflowId ?? 'none'), 200)}); continue an answer this route streamed`);
        }
        const answered = await answerApprovals(ctx, workflowId, last, principal);
        if (answered.length === 0) await ensureRun(ctx, workflowId);
        const own = metadata.success ? metadata.data.durableAgents.messageId : undefined;
        return streamFeed(c, ctx.live, workflowId, 0, chatResponse(last.id, shownUpTo(last.metadata), { answered, endBefore: (e) => isOtherSteer(e, own) }));
      },
    }),
  ];
}

/** The session part of an answer's metadata: the run it shows, and what became of its message. */
function sessionMetadata(sessionId: string, messageId: string, workflowId: string, delivery: 'queued' | 'next' | 'steered'): Record<string, unknown> {
  return { sessionId, workflowId, messageId, delivery };
}
