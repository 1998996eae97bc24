import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { FeedItem } from './feed-item';
import type { LiveHub } from './live-hub';
import type { Subscription } from './subscription';

/** One SSE frame: `event`, `id` and `data` lines, or a comment. */
export interface SseFrame {
  readonly event?: string;
  readonly id?: string;
  readonly data?: string;
  readonly comment?: string;
}

/** Options of {@link streamFeed}. */
export interface StreamFeedOptions {
  /** Frames of one feed item (none to skip it). */
  readonly render: (item: FeedItem) => readonly SseFrame[];
  /** Frames sent first, and last (after `end`). */
  readonly opening?: () => readonly SseFrame[];
  readonly closing?: () => readonly SseFrame[];
  /** Extra response headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Period of `: ping` comments. Default 15 s. */
  readonly keepAliveMs?: number;
  /** Frames waiting to be written at most before a slow client is cut off. Default 20,000. */
  readonly maxPending?: number;
}

async function write(stream: SSEStreamingApi, frame: SseFrame): Promise<void> {
  if (frame.comment !== undefined) return stream.write(`: ${frame.comment}\n\n`).then(() => undefined);
  return stream.writeSSE({ data: frame.data ?? '', ...(frame.event ? { event: frame.event } : {}), ...(frame.id !== undefined ? { id: frame.id } : {}) });
}

/**
 * An SSE response that subscribes to a run's feed after `afterSeq` and writes each item as
 * `render` says. A client that goes away only ends its own subscription: the run goes on
 * (stopping it takes an explicit request).
 */
export function streamFeed(c: Context, hub: LiveHub, workflowId: string, afterSeq: number, options: StreamFeedOptions): Response {
  for (const [name, value] of Object.entries(options.headers ?? {})) c.header(name, value);
  c.header('Cache-Control', 'no-cache, no-transform');
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream) => {
    let pending = 0;
    let chain: Promise<void> = Promise.resolve();
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const enqueue = (frames: readonly SseFrame[]): void => {
      for (const frame of frames) {
        pending += 1;
        chain = chain
          .then(() => (stream.aborted || stream.closed ? undefined : write(stream, frame)))
          .catch(() => undefined)
          .finally(() => {
            pending -= 1;
          });
      }
    };
    enqueue(options.opening?.() ?? []);
    // Items may arrive while subscribing (kept events are sent at once).
    let subscription: Subscription | undefined = undefined;
    subscription = hub.subscribe(
      workflowId,
      afterSeq,
      (item) => {
        enqueue(options.render(item));
        if (pending > (options.maxPending ?? 20_000)) subscription?.close('slow');
      },
      {
        onClose: (reason) => {
          if (reason === 'end') enqueue(options.closing?.() ?? []);
          else if (reason !== 'closed') enqueue([{ event: 'error', data: JSON.stringify({ reason: reason === 'slow' ? 'the client reads too slowly; reconnect with Last-Event-ID' : 'the feed failed; reconnect with Last-Event-ID' }) }]);
          finish();
        },
      },
    );
    const keepAlive = setInterval(() => enqueue([{ comment: 'ping' }]), options.keepAliveMs ?? 15_000);
    stream.onAbort(() => subscription?.close('closed'));
    await done;
    clearInterval(keepAlive);
    await chain;
  });
}
