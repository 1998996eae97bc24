import { jsonByteLength } from '../../../contracts/json';
import type { Message } from '../../../contracts/messages';
import type { AgentState } from '../../agents/planner';
import { chainDigest, emptyDigest } from './digest';

const sentCountKey = 'llm.sentCount';
const digestKey = 'llm.digest';
const epochKey = 'llm.transcriptEpoch';

/** The part of the run's transcript a model call must carry, and the state after it was sent. */
export interface TranscriptWindow {
  /** Messages `[0, baseCount)` were sent by an earlier call. */
  readonly baseCount: number;
  readonly baseDigest: string;
  /** Messages `[baseCount, nextCount)`. */
  readonly newMessages: readonly Message[];
  readonly nextCount: number;
  readonly nextDigest: string;
}

/** Default of the inline budget of {@link unsentMessages}. */
export const defaultMaxInlineTranscriptBytes = 32 * 1024;

/**
 * What of `messages` has not been sent to the model yet, from the planner's durable state.
 * If the transcript is shorter than what was sent (it was compacted), everything is resent.
 * New messages larger than `maxInlineBytes` (a long session history, many large tool
 * results) are passed by reference instead: the window then covers them in its base, and the
 * worker reads them through the transcript query, so no activity input grows unbounded.
 */
export function unsentMessages(
  state: AgentState,
  messages: readonly Message[],
  maxInlineBytes = defaultMaxInlineTranscriptBytes,
  transcriptEpoch = 0,
): TranscriptWindow {
  const storedCount = state.get(sentCountKey);
  const storedDigest = state.get(digestKey);
  let baseCount = typeof storedCount === 'number' ? storedCount : 0;
  let baseDigest = typeof storedDigest === 'string' ? storedDigest : emptyDigest;
  // After the runtime compacted the transcript, indexes of the old one mean nothing: start over.
  if (baseCount > messages.length || (state.get(epochKey) ?? 0) !== transcriptEpoch) {
    baseCount = 0;
    baseDigest = emptyDigest;
  }
  const newMessages = messages.slice(baseCount);
  const nextDigest = chainDigest(baseDigest, newMessages);
  if (newMessages.length && jsonByteLength(newMessages) > maxInlineBytes) {
    return { baseCount: messages.length, baseDigest: nextDigest, newMessages: [], nextCount: messages.length, nextDigest };
  }
  return { baseCount, baseDigest, newMessages, nextCount: messages.length, nextDigest };
}

/** Records that a window was delivered to the model, so later calls carry only what follows. */
export function markSent(state: AgentState, window: TranscriptWindow, transcriptEpoch = 0): void {
  state.set(sentCountKey, window.nextCount);
  state.set(digestKey, window.nextDigest);
  state.set(epochKey, transcriptEpoch);
}

/** The window of a further call in the same turn: nothing new. */
export function sentWindow(window: TranscriptWindow): TranscriptWindow {
  return { baseCount: window.nextCount, baseDigest: window.nextDigest, newMessages: [], nextCount: window.nextCount, nextDigest: window.nextDigest };
}
