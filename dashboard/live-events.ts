import { useEffect, useState } from 'preact/hooks';
import { runPath, withAccessToken } from './api';
import { addDelta, addRewind, mergeEvents, resetEvents, settle, type Rewind, type Streaming } from './timeline-state';
import type { RunEvent, TokenDelta } from './types';

export type { Streaming } from './timeline-state';

/** What {@link useRunEvents} answers. */
export interface LiveRun {
  /** The run's events, by seq. */
  readonly events: readonly RunEvent[];
  /** Model calls streaming right now (token deltas not yet followed by their plan). */
  readonly streaming: readonly Streaming[];
  /** The status the stream ended with, once the run closed. */
  readonly ended?: string;
  readonly state: 'connecting' | 'open' | 'reconnecting' | 'closed';
  /** Rewinds seen on this feed (each `reset` replaced the log from some seq on). */
  readonly resets: number;
  /** Where those rewinds replaced the log, for markers in the timeline. */
  readonly rewinds: readonly Rewind[];
  readonly error?: string;
}

function parse<T>(message: MessageEvent): T | undefined {
  try {
    return JSON.parse(message.data as string) as T;
  } catch {
    return undefined;
  }
}

/**
 * Follows a run's live feed: SSE at /api/runs/:id/events. The browser's EventSource resumes
 * with Last-Event-ID after a dropped connection; `reset` drops events a rewind replaced;
 * `delta` streams the text of the model call in flight; `end` closes the feed. Changing
 * `generation` reconnects from the start.
 */
export function useRunEvents(workflowId: string, generation = 0): LiveRun {
  const [live, setLive] = useState<LiveRun>({ events: [], streaming: [], state: 'connecting', resets: 0, rewinds: [] });
  useEffect(() => {
    // A new generation (after a rewind of a run whose feed had ended) reads the log afresh.
    setLive((prev) => ({ events: [], streaming: [], state: 'connecting', resets: prev.resets, rewinds: prev.rewinds }));
    const source = new EventSource(withAccessToken(runPath(workflowId, '/events')));
    const update = (fn: (prev: LiveRun) => LiveRun) => setLive(fn);
    source.onopen = () => update((prev) => ({ ...prev, state: 'open', error: undefined }));
    source.addEventListener('run-event', (message) => {
      const event = parse<RunEvent>(message);
      if (event) update((prev) => ({ ...prev, events: mergeEvents(prev.events, event), streaming: settle(prev.streaming, event) }));
    });
    source.addEventListener('reset', (message) => {
      const reset = parse<{ epoch: string; fromSeq: number }>(message);
      if (reset) update((prev) => ({ ...prev, events: resetEvents(prev.events, reset.fromSeq), streaming: [], resets: prev.resets + 1, rewinds: addRewind(prev.rewinds, reset.fromSeq, new Date().toISOString()) }));
    });
    source.addEventListener('delta', (message) => {
      const delta = parse<TokenDelta>(message);
      if (delta) update((prev) => ({ ...prev, streaming: addDelta(prev.streaming, delta) }));
    });
    source.addEventListener('end', (message) => {
      const end = parse<{ status: string }>(message);
      source.close();
      update((prev) => ({ ...prev, streaming: [], state: 'closed', ended: end?.status ?? 'closed' }));
    });
    source.addEventListener('error', (event) => {
      // The server's own `event: error` (a feed cut off) carries a reason; the browser retries
      // with Last-Event-ID.
      if (event instanceof MessageEvent) {
        const failure = parse<{ reason?: string }>(event);
        update((prev) => ({ ...prev, state: 'reconnecting', error: failure?.reason ?? 'the live feed failed' }));
        return;
      }
      // CONNECTING: the browser retries by itself (with Last-Event-ID). CLOSED: it gave up,
      // e.g. the server answered an error status instead of a stream.
      if (source.readyState === EventSource.CLOSED) {
        update((prev) => (prev.ended ? prev : { ...prev, state: 'closed', error: 'the live event stream was refused or closed; reload the page to retry' }));
      } else update((prev) => ({ ...prev, state: 'reconnecting' }));
    });
    return () => source.close();
  }, [workflowId, generation]);
  return live;
}
