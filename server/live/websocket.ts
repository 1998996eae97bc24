import { upgradeWebSocket } from '@hono/node-server';
import type { Context } from 'hono';
import type { Principal } from '../auth';
import type { ServerContext } from '../context';
import { ApiError } from '../errors';
import { handleControlMessage } from './control-messages';
import type { FeedItem } from './feed-item';
import type { Subscription } from './subscription';

/** What the server sends over a run's WebSocket, as JSON text messages. */
export type WebSocketOut =
  | { type: 'event'; event: unknown }
  | { type: 'delta'; delta: unknown }
  | { type: 'reset'; epoch: string; fromSeq: number }
  | { type: 'end'; status: string };

function outOf(item: FeedItem): WebSocketOut {
  switch (item.type) {
    case 'event':
      return { type: 'event', event: item.event };
    case 'delta':
      return { type: 'delta', delta: item.delta };
    case 'reset':
      return { type: 'reset', epoch: item.epoch, fromSeq: item.fromSeq };
    case 'end':
      return { type: 'end', status: item.status };
  }
}

/**
 * Upgrades a request to the run's WebSocket: the feed goes out (`event`, `delta`, `reset`,
 * `end`, from after `afterSeq`), control messages come in (`{ type, ...payload }`, one type per
 * operation on a run, see server/operations.ts) and are answered with `result`. The socket stays open after `end` for
 * control answers until the client closes it; closing it never stops the run.
 *
 * @throws ApiError `invalid_input` for a request that is no WebSocket upgrade.
 */
export function runWebSocket(ctx: ServerContext, c: Context, workflowId: string, afterSeq: number, principal: Principal): Promise<Response> {
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
    throw new ApiError('invalid_input', 'this endpoint is a WebSocket: send an upgrade request (ws://…/api/runs/:id/ws?access_token=…)');
  }
  let subscription: Subscription | undefined;
  let untrack: (() => void) | undefined;
  return upgradeWebSocket(c, {
    onOpen: (_event, ws) => {
      untrack = ctx.live.track(() => ws.close(1001, 'the server is shutting down'));
      subscription = ctx.live.subscribe(workflowId, afterSeq, (item) => {
        if (ws.readyState === 1) ws.send(JSON.stringify(outOf(item)));
      });
    },
    onMessage: (event, ws) => {
      const raw = typeof event.data === 'string' ? event.data : Buffer.from(event.data as ArrayBuffer).toString('utf8');
      void handleControlMessage(ctx.agents, workflowId, principal, raw).then((result) => {
        if (ws.readyState === 1) ws.send(JSON.stringify(result));
      });
    },
    onClose: () => {
      untrack?.();
      subscription?.close('closed');
    },
    onError: () => subscription?.close('closed'),
  });
}
