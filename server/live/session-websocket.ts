import { upgradeWebSocket } from '@hono/node-server';
import type { Context } from 'hono';
import type { Principal } from '../auth';
import type { ServerContext } from '../context';
import { ApiError } from '../errors';
import { sessionOperations } from '../operations';
import { handleControlMessage } from './control-messages';
import type { SessionEvent } from '../../contracts/session';
import type { SessionSubscription } from './session-feed';

/**
 * What the server sends over a session's WebSocket, as JSON text messages, besides the `result`
 * of each operation sent in: each session event once, in seq order, then `end` once the session
 * has closed.
 */
export type SessionWebSocketOut = { readonly type: 'event'; readonly event: SessionEvent } | { readonly type: 'end'; readonly status: string };

/**
 * Upgrades a request to the session's WebSocket: its events go out (`event` with a session event,
 * from after `afterSeq`, then `end` once the session has closed), its operations come in
 * (`{ id, type, ...payload }`, one type per row of the session operations table:
 * `sendMessage`, `close`, `editQueue`) and are answered with `result`, as over a run's socket.
 * Watching writes nothing to the session: the feed reads its events query. Closing the socket
 * never changes the session.
 *
 * @throws ApiError `invalid_input` for a request that is no WebSocket upgrade.
 */
export function sessionWebSocket(ctx: ServerContext, c: Context, sessionId: string, afterSeq: number, principal: Principal): Promise<Response> {
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
    throw new ApiError('invalid_input', 'this endpoint is a WebSocket: send an upgrade request (ws://…/api/sessions/:id/ws?access_token=…)');
  }
  let subscription: SessionSubscription | undefined;
  let untrack: (() => void) | undefined;
  const subject = `session ${sessionId}`;
  return upgradeWebSocket(c, {
    onOpen: (_event, ws) => {
      untrack = ctx.live.track(() => ws.close(1001, 'the server is shutting down'));
      subscription = ctx.live.sessions.subscribe(sessionId, afterSeq, (item: SessionWebSocketOut) => {
        if (ws.readyState === 1) ws.send(JSON.stringify(item));
      });
    },
    onMessage: (event, ws) => {
      const raw = typeof event.data === 'string' ? event.data : Buffer.from(event.data as ArrayBuffer).toString('utf8');
      void handleControlMessage(ctx.agents, sessionId, principal, raw, sessionOperations, subject).then((result) => {
        // What the operation decided is an event of the session: read it now rather than at the next poll.
        if (result.ok) ctx.live.sessions.wake(sessionId);
        if (ws.readyState === 1) ws.send(JSON.stringify(result));
      });
    },
    onClose: () => {
      untrack?.();
      subscription?.close();
    },
    onError: () => subscription?.close(),
  });
}
