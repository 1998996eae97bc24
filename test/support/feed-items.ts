import type { RunEvent } from '../../contracts';
import type { TokenDelta } from '../../contracts/deltas';
import type { FeedItem } from '../../server/live/feed-item';

/**
 * Builders of feed items for projection tests: `ev` numbers events from 1 (`restart` starts
 * again), `delta` makes a text delta of turn 1 unless `extra` says otherwise.
 */
export function feedItems(): { ev: (e: Record<string, unknown>) => FeedItem; delta: (text: string, extra?: Partial<TokenDelta>) => FeedItem; restart: () => void } {
  const at = '2026-01-01T00:00:00.000Z';
  let seq = 0;
  return {
    ev: (e) => ({ type: 'event', event: { seq: ++seq, at, ...e } as RunEvent }),
    delta: (text, extra = {}) => ({ type: 'delta', delta: { workflowId: 'w', activityId: '2', attempt: 1, turn: 1, seq: 0, kind: 'text', text, at: 0, ...extra } }),
    restart: () => {
      seq = 0;
    },
  };
}
