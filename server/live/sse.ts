import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
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
  /** Asked after each rendered item: true ends the response there, with the closing frames. */
  readonly stopAfter?: () => boolean;
  /**
   * Asked when the feed ended (the run's end) without `stopAfter` saying so: another run's feed
   * the same response goes on with (a session chat's steered message that the run ended before
   * taking runs as a run of its own), or undefined to close the response.
   */
  readonly continueWith?: () => Promise<FeedContinuation | undefined>;
}

/** Another run's feed, rendered into the same response ({@link StreamFeedOptions.continueWith}). */
export interface FeedContinuation extends Pick<StreamFeedOptions, 'render' | 'stopAfter' | 'continueWith'> {
  readonly workflowId: string;
}

/** The text of one frame on the wire. */
export function formatFrame(frame: SseFrame): string {
  if (frame.comment !== undefined) return `: ${frame.comment}\n\n`;
  let text = '';
  if (frame.id !== undefined) text += `id: ${frame.id}\n`;
  if (frame.event) text += `event: ${frame.event}\n`;
  for (const line of (frame.data ?? '').split(/\r?\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
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
    // Frames of one tick go out in one write: a burst of deltas to many subscribers stays cheap.
    let buffer = '';
    let buffered = 0;
    /** Frames buffered or being written. */
    let pending = 0;
    let chain: Promise<void> = Promise.resolve();
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const flush = (): void => {
      if (buffer === '') return;
      const text = buffer;
      const count = buffered;
      buffer = '';
      buffered = 0;
      chain = chain
        .then(() => (stream.aborted || stream.closed ? undefined : stream.write(text).then(() => undefined)))
        .catch(() => undefined)
        .finally(() => {
          pending -= count;
        });
    };
    const enqueue = (frames: readonly SseFrame[]): void => {
      if (frames.length === 0) return;
      if (buffer === '') setImmediate(flush);
      for (const frame of frames) buffer += formatFrame(frame);
      buffered += frames.length;
      pending += frames.length;
    };
    enqueue(options.opening?.() ?? []);
    // Items may arrive while subscribing (kept events are sent at once).
    let subscription: Subscription | undefined = undefined;
    let aborted = false;
    const follow = (feed: FeedContinuation, from: number): void => {
      let stopped = false;
      subscription = hub.subscribe(
        feed.workflowId,
        from,
        (item) => {
          if (stopped) return;
          enqueue(feed.render(item));
          if (feed.stopAfter?.()) {
            stopped = true;
            enqueue(options.closing?.() ?? []);
            subscription?.close('closed');
          } else if (pending > (options.maxPending ?? 20_000)) subscription?.close('slow');
        },
        {
          onClose: (reason) => {
            if (reason === 'end' && feed.continueWith && !aborted) {
              feed.continueWith().then(
                (next) => (next && !aborted ? follow(next, 0) : (enqueue(options.closing?.() ?? []), finish())),
                () => (enqueue([{ event: 'error', data: JSON.stringify({ reason: 'the feed failed' }) }]), finish()),
              );
              return;
            }
            if (reason === 'end') enqueue(options.closing?.() ?? []);
            else if (reason !== 'closed') enqueue([{ event: 'error', data: JSON.stringify({ reason: reason === 'slow' ? 'the client reads too slowly; reconnect with Last-Event-ID' : 'the feed failed; reconnect with Last-Event-ID' }) }]);
            finish();
          },
        },
      );
      // Stopped while subscribing, before `subscription` was set.
      if (stopped) subscription.close('closed');
    };
    follow({ workflowId, render: options.render, stopAfter: options.stopAfter, continueWith: options.continueWith }, afterSeq);
    const keepAlive = setInterval(() => enqueue([{ comment: 'ping' }]), options.keepAliveMs ?? 15_000);
    stream.onAbort(() => {
      aborted = true;
      subscription?.close('closed');
    });
    await done;
    clearInterval(keepAlive);
    flush();
    await chain;
  });
}
