import { z } from 'zod';
import { quoted } from '../../contracts/safe-text';
import { deltaBatchSchema } from '../../contracts/deltas';
import { eventPageSchema } from '../../contracts';
import type { ServerContext } from '../context';
import { ApiError } from '../errors';
import { route, type AnyRoute } from '../routes';
import type { FeedItem } from './feed-item';
import { streamFeed, type SseFrame } from './sse';
import { streamTree } from './tree-sse';
import { UiMessageProjection, uiMessageFrames, uiMessageStreamHeaders } from './ui-message-stream';
import { runWebSocket } from './websocket';
import { sessionWebSocket } from './session-websocket';
import { clientErrorKind } from '../../client/error-table';
import { sessionRunState } from '../../client/session-run-start';
import { readOrRecorded } from '../../client/no-worker-reads';
import { recordedEventPage } from '../api/no-worker';

const eventsQuerySchema = z.object({
  after: z.coerce.number().int().nonnegative().default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
});

const streamQuerySchema = z.object({ after: z.coerce.number().int().nonnegative().default(0) });

/** Runs one delta batch may name: each unknown one costs a describe call to Temporal. */
const maxRunsPerBatch = 500;

/** Frames by item: a feed hands the same item to every subscriber, so it is rendered once. */
const rendered = new WeakMap<FeedItem, SseFrame[]>();

/** SSE frames of the events stream. */
export function eventFrames(item: FeedItem): SseFrame[] {
  let frames = rendered.get(item);
  if (!frames) {
    frames = renderEventFrames(item);
    rendered.set(item, frames);
  }
  return frames;
}

function renderEventFrames(item: FeedItem): SseFrame[] {
  switch (item.type) {
    case 'event':
      return [{ id: String(item.event.seq), event: 'run-event', data: JSON.stringify(item.event) }];
    case 'delta':
      return [{ event: 'delta', data: JSON.stringify(item.delta) }];
    case 'reset':
      return [{ event: 'reset', data: JSON.stringify({ epoch: item.epoch, fromSeq: item.fromSeq }) }];
    case 'end':
      return [{ event: 'end', data: JSON.stringify({ status: item.status }) }];
  }
}

/** Where an SSE client resumes: `Last-Event-ID` (a reconnecting EventSource) over `?after`. */
function resumeAfter(lastEventId: string | undefined, after: number): number {
  if (lastEventId === undefined || lastEventId.trim() === '') return after;
  const seq = Number(lastEventId);
  if (!Number.isInteger(seq) || seq < 0) throw new ApiError('invalid_input', `header Last-Event-ID: expected the seq of the last event seen, got ${quoted(lastEventId, 100)}`);
  return seq;
}

/**
 * Reads the run's description: a missing run is a 404 before any stream opens, unless it is a
 * session's run that has not started yet (`sendMessage` answers it first), which the stream
 * waits for, or one that started meanwhile.
 */
export async function ensureRun(ctx: ServerContext, workflowId: string): Promise<void> {
  try {
    await ctx.agents.client.workflow.getHandle(workflowId).describe();
  } catch (err) {
    if ((await sessionRunState(ctx.agents.client, workflowId)) !== 'none') return;
    throw err;
  }
}

/**
 * Reads the session's description: a session never opened is a 404 before the socket opens (a
 * closed one is followed: its events, then `end`).
 */
async function ensureSession(ctx: ServerContext, sessionId: string): Promise<void> {
  const { workflowId } = ctx.agents.session(sessionId);
  try {
    await ctx.agents.client.workflow.getHandle(workflowId).describe();
  } catch (err) {
    if (clientErrorKind(err) === 'not_found') throw new ApiError('run_not_found', `session ${sessionId} not found (workflow ${workflowId}): open it first`);
    throw err;
  }
}

/** The live routes: events (SSE or JSON), the AI SDK UI message stream, the WebSocket and the delta intake. */
export function liveRoutes(ctx: ServerContext): AnyRoute[] {
  return [
    route({
      method: 'get',
      path: '/api/runs/:id/events',
      access: 'viewer',
      queryToken: true,
      summary: 'The run\'s events: a JSON page, or with Accept: text/event-stream a live SSE stream',
      description:
        'JSON: events with seq > `after` (an EventPage). SSE: `event: run-event` with `id: <seq>` and the event as data, from `after` or `Last-Event-ID` on; ' +
        '`event: reset` data { epoch, fromSeq } after a rewind (drop events >= fromSeq, the new ones follow); `event: delta` token deltas of the current model call ' +
        '(no id; a preview that never enters history); `event: end` data { status } when the run closes; `: ping` comments keep it alive. ' +
        'JSON when no worker can answer (none polls the run\'s task queue: at once; else after the query\'s tries): `source: "history"` with `noWorker`, no events, `nextAfterSeq` = `after`, the recorded status and `steps`, what the history records; 503 for a closed run.',
      tags: ['live'],
      query: eventsQuerySchema,
      response: eventPageSchema,
      streams: 'text/event-stream',
      handle: async ({ params, query, c }) => {
        const workflowId = params.id as string;
        if (!(c.req.header('accept') ?? '').includes('text/event-stream')) {
          return readOrRecorded(
            ctx.agents,
            workflowId,
            // The client's tries (a worker may lose a query of a closed run among several at once).
            () => ctx.agents.events(workflowId, query.after, query.limit),
            (why) => recordedEventPage(ctx.agents, workflowId, query.after, why),
          );
        }
        const after = resumeAfter(c.req.header('last-event-id'), query.after);
        await ensureRun(ctx, workflowId);
        return streamFeed(c, ctx.live, workflowId, after, { render: eventFrames });
      },
    }),
    route({
      method: 'get',
      path: '/api/runs/:id/tree/events',
      access: 'viewer',
      queryToken: true,
      summary: 'Live events of the run and of every sub-agent run it starts (SSE)',
      description:
        '`event: run-event` data { workflowId, path, event } (path: call ids from this run down); `event: delta` and `event: reset` likewise with their run; ' +
        '`event: run-end` data { workflowId, path, status } per run, and `event: end` once every run of the tree has ended. No resume by id: reconnecting starts over.',
      tags: ['live'],
      streams: 'text/event-stream',
      handle: async ({ params, c }) => {
        const workflowId = params.id as string;
        await ensureRun(ctx, workflowId);
        return streamTree(c, ctx.live, workflowId);
      },
    }),
    route({
      method: 'get',
      path: '/api/runs/:id/ui-stream',
      access: 'viewer',
      queryToken: true,
      summary: 'The run as an AI SDK UI message stream (v1)',
      description:
        'SSE `data: <UIMessageChunk JSON>` parts (AI SDK 7), header x-vercel-ai-ui-message-stream: v1, ending with `data: [DONE]`: start, start-step/finish-step per turn, ' +
        'text-start/text-delta/text-end (one text part per answer), tool-input-start/-delta/-available (a call\'s input always before its approval request), tool-output-available/-error, ' +
        'tool-approval-request (approvalId = toolCallId), tool-approval-response with the decision (approved, reason), a rejected call ending with tool-output-denied and nothing after it, ' +
        'data-<event type> for other events, data-reset-step when a model call is retried, data-reset after a rewind, finish.',
      tags: ['live'],
      query: streamQuerySchema,
      streams: 'text/event-stream',
      handle: async ({ params, query, c }) => {
        const workflowId = params.id as string;
        await ensureRun(ctx, workflowId);
        const projection = new UiMessageProjection(workflowId);
        return streamFeed(c, ctx.live, workflowId, query.after, {
          headers: uiMessageStreamHeaders,
          opening: () => uiMessageFrames(projection.start()),
          render: (item) => uiMessageFrames(projection.item(item)),
          closing: () => [{ data: '[DONE]' }],
        });
      },
    }),
    route({
      method: 'get',
      path: '/api/runs/:id/ws',
      access: 'viewer',
      queryToken: true,
      summary: 'The run\'s WebSocket: its feed out, control messages in',
      description:
        'Out: { type: event, event } | { type: delta, delta } | { type: reset, epoch, fromSeq } | { type: end, status } | { type: result, id, ok, body }. ' +
        'In: { id, type: pause|resume|kill|decide|answer, ...payload as over HTTP }, with the same roles and errors. Token: Authorization header or ?access_token=.',
      tags: ['live'],
      query: streamQuerySchema,
      handle: async ({ params, query, c, principal }) => {
        const workflowId = params.id as string;
        await ensureRun(ctx, workflowId);
        return runWebSocket(ctx, c, workflowId, query.after, principal);
      },
    }),
    route({
      method: 'get',
      path: '/api/sessions/:id/ws',
      access: 'viewer',
      queryToken: true,
      summary: "The session's WebSocket: its events out, its operations in",
      description:
        'Out: { type: event, event } (a session event, as `GET /api/sessions/:id/events` answers it) from after `after`, | { type: end, status } once the session has closed | { type: result, id, ok, body }. ' +
        'In: { id, type: sendMessage|close|editQueue, ...payload as over HTTP }, with the same roles and errors; a message it cannot take is answered with invalid_input naming the session and the field. ' +
        'Watching writes nothing to the session. Token: Authorization header or ?access_token=.',
      tags: ['live', 'sessions'],
      query: streamQuerySchema,
      handle: async ({ params, query, c, principal }) => {
        const sessionId = params.id as string;
        await ensureSession(ctx, sessionId);
        return sessionWebSocket(ctx, c, sessionId, query.after, principal);
      },
    }),
    route({
      method: 'post',
      path: '/api/deltas',
      access: 'publisher',
      summary: 'Token deltas of a worker\'s model calls, and its announcements of runs\' new events (publisher role)',
      description:
        'Best effort: kept in memory (bounded in bytes per run and in all) for the current turn of each run and sent to its live subscribers; never written to the run\'s history. ' +
        `Only deltas of runs that exist and are open are taken (checked with Temporal, the answer kept a few seconds); the others are dropped. At most ${maxRunsPerBatch} runs per batch. ` +
        'With a broker (several servers behind one address) they reach the subscribers of every server. A publisher token scoped to task queues gets 403 for a run on another queue. ' +
        'A server with delta keys takes only deltas whose model call is signed (`signatures`: HMAC-SHA256 over [workflowId, runId, activityId, attempt]) with one of them, and answers 403 naming the run and key id otherwise.',
      tags: ['live'],
      body: deltaBatchSchema,
      status: 204,
      handle: async ({ body, principal }) => {
        const runs = new Set(body.deltas.map((d) => d.workflowId)).size;
        if (runs > maxRunsPerBatch) throw new ApiError('invalid_input', `body.deltas: deltas of at most ${maxRunsPerBatch} runs per batch (this one has ${runs})`);
        await ctx.live.takePosted(body, principal);
      },
    }),
  ];
}
