import type { RunEvent } from '../../contracts';
import type { TokenDelta } from '../../contracts/deltas';

/**
 * What a live feed sends its subscribers, in order: run events (gap-free by seq), a reset
 * when a rewind replaced events from `fromSeq` on (drop what you have from there; the new
 * events follow), token deltas (a preview, no seq), and the end of the run.
 */
export type FeedItem =
  | { readonly type: 'event'; readonly event: RunEvent }
  | { readonly type: 'reset'; readonly epoch: string; readonly fromSeq: number }
  | { readonly type: 'delta'; readonly delta: TokenDelta }
  | { readonly type: 'end'; readonly status: string };

/** Statuses of a run's log that mean it has ended. */
export const terminalRunStatuses: ReadonlySet<string> = new Set(['completed', 'failed', 'terminated']);
