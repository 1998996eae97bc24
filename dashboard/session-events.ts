import { useEffect, useState } from 'preact/hooks';
import { withAccessToken } from './api';
import { mergeSessionEvents } from './session-view';
import type { SessionEvent } from './types';

/** What {@link useSessionEvents} answers. */
export interface LiveSession {
  /** The session's events, by seq. */
  readonly events: readonly SessionEvent[];
  /** The status its socket ended with, once the session closed. */
  readonly ended?: string;
  readonly state: 'connecting' | 'open' | 'reconnecting' | 'closed';
  readonly error?: string;
}

/** How long to wait before reconnecting a socket that dropped. */
const reconnectMs = 1000;
/** Sockets refused in a row (a bad token, a session that does not exist) before it gives up. */
const maxRefusals = 5;

/** The WebSocket URL of a session's socket on this server, resuming after `afterSeq`. */
function socketUrl(sessionId: string, afterSeq: number): string {
  const path = withAccessToken(`/api/sessions/${encodeURIComponent(sessionId)}/ws?after=${afterSeq}`);
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}`;
}

/**
 * Follows a session's events over its WebSocket (`/api/sessions/:id/ws`): every event it keeps,
 * then each new one as the session decides it, until the session closes (`end`). A socket that
 * drops is opened again after the last seq seen.
 */
export function useSessionEvents(sessionId: string): LiveSession {
  const [live, setLive] = useState<LiveSession>({ events: [], state: 'connecting' });
  useEffect(() => {
    let stopped = false;
    let lastSeq = 0;
    let socket: WebSocket | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let refusals = 0;
    setLive({ events: [], state: 'connecting' });
    const connect = (): void => {
      const ws = new WebSocket(socketUrl(sessionId, lastSeq));
      socket = ws;
      let ended = false;
      let opened = false;
      ws.onopen = () => {
        opened = true;
        refusals = 0;
        setLive((prev) => ({ ...prev, state: 'open', error: undefined }));
      };
      ws.onmessage = (message) => {
        let item: { type?: string; event?: SessionEvent; status?: string };
        try {
          item = JSON.parse(String(message.data)) as typeof item;
        } catch {
          return;
        }
        if (item.type === 'event' && item.event) {
          const event = item.event;
          lastSeq = Math.max(lastSeq, event.seq);
          setLive((prev) => ({ ...prev, events: mergeSessionEvents(prev.events, [event]) }));
        } else if (item.type === 'end') {
          ended = true;
          setLive((prev) => ({ ...prev, state: 'closed', ended: item.status ?? 'closed' }));
          ws.close();
        }
      };
      ws.onclose = () => {
        if (stopped || ended) return;
        if (!opened && ++refusals >= maxRefusals) {
          setLive((prev) => ({ ...prev, state: 'closed', error: "the session's live feed was refused; reload the page to retry" }));
          return;
        }
        setLive((prev) => ({ ...prev, state: 'reconnecting' }));
        retry = setTimeout(connect, reconnectMs);
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      socket?.close();
    };
  }, [sessionId]);
  return live;
}
