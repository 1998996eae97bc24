/**
 * AG-UI over a session: an AG-UI client (`HttpAgent` of `@ag-ui/client` with
 * `url: '<server>/api/sessions/<id>/ag-ui'` and the session id as `threadId`) sends a new user
 * message with each run it asks for; the session's `whenBusy` decides what becomes of it, and the
 * AG-UI run shows the durable run that answers it (as the run's AG-UI route does: up to its
 * approvals, which `resume` entries answer, or its end). What a response shows for each decision
 * is session-chat-plan.ts's, as for the AI SDK chat over a session.
 *
 * The thread's state (`STATE_SNAPSHOT`, which `HttpAgent` sends back with every request) names
 * the run a response showed: `{ durableAgents: { sessionId, workflowId, messageId, lastSeq } }`.
 */
import { z } from 'zod';
import type { RunEvent } from '../../contracts';
import { jsonValueSchema } from '../../contracts/json';
import { quoted } from '../../contracts/safe-text';
import { busyPolicySchema, messageIdSchema, parseSessionRunWorkflowId, type SessionMessage } from '../../contracts/session';
import { authorize } from '../auth';
import type { ServerContext } from '../context';
import { ApiError } from '../errors';
import { route, type AnyRoute } from '../routes';
import { sessionIdSchema } from '../api/ids';
import type { AgUiProjectionOptions } from './ag-ui';
import { agUiResponse, agUiRunInputSchema, applyResume, pendingApprovals } from './ag-ui-route';
import { followOf, isOtherSteer, isSteerOf, resumeTarget } from './session-chat-plan';
import { sendSessionMessage, waitForRequeuedRun } from './session-send';
import { streamFeed, type FeedContinuation } from './sse';

/** What the client forwards with a run (`runAgent({ forwardedProps })`): how the session takes its message. */
const forwardedPropsSchema = z
  .object({
    /** The session's agent: a session that is not open is opened with it; one of another agent refuses the message. */
    agent: z.string().min(1).max(200).optional(),
    /** What the session does with the message if one of its runs is active (default: the session's). */
    whenBusy: busyPolicySchema().optional(),
    /** Planner options of the message's run. */
    plannerOptions: jsonValueSchema().optional(),
  })
  .passthrough();

/** The thread's state as a response of this route left it. */
const threadStateSchema = z.object({
  durableAgents: z.object({ lastSeq: z.number().int().nonnegative(), workflowId: z.string().optional(), messageId: z.string().optional() }).passthrough(),
});
type ThreadState = z.infer<typeof threadStateSchema>['durableAgents'];

const userContentSchema = z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }).passthrough())]);

/** The thread's state, if the request carries one this route left (a client's own state is ignored). */
function threadState(state: unknown): ThreadState | undefined {
  if (typeof state !== 'object' || state === null || !('durableAgents' in state)) return undefined;
  const parsed = threadStateSchema.safeParse(state);
  if (!parsed.success) throw new ApiError('invalid_input', `body.state.durableAgents: expected { lastSeq, workflowId, messageId } as the last response left it; got ${quoted(JSON.stringify(state.durableAgents) ?? '', 100)}`);
  return parsed.data.durableAgents;
}

/** The AG-UI route of sessions (`HttpAgent` with `url: '/api/sessions/<id>/ag-ui'`, threadId = session id). */
export function sessionAgUiRoutes(ctx: ServerContext): AnyRoute[] {
  const { agents } = ctx;

  /** The projection of run `workflowId` in the session's thread: its state, and message ids of its own. */
  const projectionOf = (sessionId: string, workflowId: string, messageId: string | undefined): AgUiProjectionOptions => ({
    state: { sessionId, workflowId, ...(messageId ? { messageId } : {}) },
    idPrefix: `run-${parseSessionRunWorkflowId(workflowId)?.runNumber ?? 0}-`,
  });

  /** The run of session `sessionId` a thread's state names (400 naming the field when it names none of them). */
  const runOfState = (sessionId: string, state: ThreadState | undefined): string => {
    const workflowId = state?.workflowId;
    if (workflowId === undefined || parseSessionRunWorkflowId(workflowId)?.sessionWorkflowId !== agents.session(sessionId).workflowId) {
      throw new ApiError('invalid_input', `body.state.durableAgents.workflowId: names no run of session ${sessionId} (got ${quoted(String(workflowId ?? 'none'), 200)}); send the state the last response left`);
    }
    return workflowId;
  };

  return [
    route({
      method: 'post',
      path: '/api/sessions/:id/ag-ui',
      access: 'viewer',
      summary: 'A session as an AG-UI agent (threadId = session id): a new user message is sent to the session, and the run that answers it streams',
      description:
        'The body `HttpAgent` posts (AG-UI 1.0 RunAgentInput), threadId = the session id. A last message from the user (operator role) is sent to the session with its ' +
        'AG-UI message id as the message id (a retried request sends nothing twice), opening the session with forwardedProps.agent when it is not open; ' +
        'forwardedProps.whenBusy (enqueue | reject | interrupt | rollback | steer) and plannerOptions apply to it. The AG-UI run shows the run that answers it as ' +
        'POST /api/ag-ui shows a run: enqueue, interrupt and rollback from the start of the message\'s run; steer from the event that says the active run has it (the ' +
        'response that showed the run until then finishes there, its state naming continuedBy); reject while a run is active is 409 session_busy naming the run. ' +
        '`resume` entries answer the approvals of the run the state names (state.durableAgents.workflowId), and the stream continues after state.durableAgents.lastSeq. ' +
        'STATE_SNAPSHOT { durableAgents: { sessionId, workflowId, messageId, lastSeq } } before RUN_FINISHED.',
      tags: ['live', 'human inputs', 'sessions'],
      body: agUiRunInputSchema.extend({ threadId: sessionIdSchema }),
      streams: 'text/event-stream',
      handle: async ({ params, body, c, principal }) => {
        const sessionId = params.id as string;
        if (body.threadId !== sessionId) throw new ApiError('invalid_input', `body.threadId: the thread id is the session id, ${quoted(sessionId, 100)}; got ${quoted(body.threadId, 100)}`);
        const props = forwardedPropsSchema.safeParse(body.forwardedProps ?? {});
        if (!props.success) {
          const issue = props.error.issues[0];
          throw new ApiError('invalid_input', `body.forwardedProps.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
        }
        const state = threadState(body.state);
        const { runId } = body;

        // Answers to the approvals of the run the thread shows: that run, after what the client has.
        if ((body.resume ?? []).length > 0) {
          const workflowId = runOfState(sessionId, state);
          const answered = await applyResume(ctx, workflowId, body, principal);
          const own = state?.messageId;
          return streamFeed(
            c,
            ctx.live,
            workflowId,
            0,
            agUiResponse({ threadId: sessionId, runId, shownSeq: state?.lastSeq ?? 0, answered, projection: projectionOf(sessionId, workflowId, own), endBefore: (e) => isOtherSteer(e, own) }),
          );
        }

        const index = body.messages.length - 1;
        const last = body.messages[index];
        if (last?.role !== 'user') {
          // No new message: the run the thread shows, after what the client has; else the session's active run.
          const workflowId = state ? runOfState(sessionId, state) : resumeTarget(await agents.session(sessionId).status())?.workflowId;
          if (!workflowId) throw new ApiError('invalid_input', `body.messages: session ${sessionId} runs nothing now, and the request brings no user message to send it`);
          const waitingNow = await pendingApprovals(ctx, workflowId);
          const own = state?.messageId;
          return streamFeed(c, ctx.live, workflowId, 0, agUiResponse({ threadId: sessionId, runId, shownSeq: state?.lastSeq ?? 0, waitingNow, projection: projectionOf(sessionId, workflowId, own), endBefore: (e) => isOtherSteer(e, own) }));
        }

        authorize(principal, 'operator');
        const messageId = messageIdSchema().safeParse(last.id);
        if (!messageId.success) throw new ApiError('invalid_input', `body.messages.${index}.id: ${messageId.error.issues[0]?.message ?? 'not a message id'} (the session takes it as the message id), got ${quoted(last.id, 100)}`);
        const content = userContentSchema.safeParse(last.content);
        const text = !content.success ? '' : typeof content.data === 'string' ? content.data : content.data.flatMap((p) => (p.type === 'text' && p.text ? [p.text] : [])).join('\n');
        if (text.trim() === '') throw new ApiError('invalid_input', `body.messages.${index}.content: the user message has no text`);
        const message: SessionMessage = {
          content: text,
          messageId: messageId.data,
          ...(props.data.whenBusy ? { whenBusy: props.data.whenBusy } : {}),
          ...(props.data.plannerOptions !== undefined ? { plannerOptions: props.data.plannerOptions } : {}),
        };
        const record = await sendSessionMessage(ctx, sessionId, message, props.data.agent, 'body.forwardedProps.agent');
        const follow = followOf(record, messageId.data);
        const endBefore = (e: RunEvent) => isOtherSteer(e, messageId.data);
        const response = (workflowId: string, liveFrom?: (e: RunEvent) => boolean) =>
          agUiResponse({ threadId: sessionId, runId, shownSeq: 0, projection: projectionOf(sessionId, workflowId, messageId.data), endBefore, ...(liveFrom ? { liveFrom } : {}) });
        switch (follow.type) {
          case 'run':
            return streamFeed(c, ctx.live, follow.workflowId, 0, response(follow.workflowId));
          case 'steered': {
            let taken = false;
            const continueWith = async (): Promise<FeedContinuation | undefined> => {
              if (taken) return undefined;
              const requeued = await waitForRequeuedRun(ctx, sessionId, messageId.data);
              if (!requeued) return undefined;
              const { render, stopAfter } = response(requeued.workflowId);
              return { workflowId: requeued.workflowId, render, ...(stopAfter ? { stopAfter } : {}) };
            };
            return streamFeed(c, ctx.live, follow.workflowId, 0, { ...response(follow.workflowId, (e) => (taken = isSteerOf(e, messageId.data))), continueWith });
          }
          case 'dropped':
            throw new ApiError('run_ended', `session ${sessionId}: message ${quoted(messageId.data, 100)} was dropped from the queue before it ran (run ${follow.workflowId})`);
        }
      },
    }),
  ];
}
