/** How much state a run carries across continue-as-new, and how it is compacted to fit. */
import { jsonByteLength } from '../../contracts/json';
import { maxPayloadBytes } from '../../contracts/payload-limit';
import type { Message } from '../../contracts/messages';

/**
 * Upper bound of the input a run carries into its next execution, in JSON bytes: under the
 * per-payload limit our servers enforce ({@link maxPayloadBytes}; Temporal's own default is
 * 2 MB), which would refuse the continue-as-new and leave the run stuck, with room to spare.
 */
export const carriedInputMaxBytes = maxPayloadBytes - 64 * 1024;

/** How much a run carries across continue-as-new; later levels are tried when earlier ones pass the bound. */
export interface CarryLevel {
  /** Turns whose tool results are kept whole (the last turn's feed the next planner turn); older ones are compacted. */
  readonly keptTurns: number;
  /** Tool outputs (most recent) carried. */
  readonly outputs: number;
  /** Events carried (the newest, at most this many and `eventBytes`), so followers see one gap-free sequence. */
  readonly events: number;
  readonly eventBytes: number;
  /** JSON bytes of transcript carried; older messages beyond it are dropped. */
  readonly transcriptBytes: number;
  /** Characters of text kept per message (tool results, replies); the rest is cut. */
  readonly messageChars: number;
}

export const carryLevels: readonly CarryLevel[] = [
  { keptTurns: 20, outputs: 300, events: 500, eventBytes: 256 * 1024, transcriptBytes: 192 * 1024, messageChars: Number.POSITIVE_INFINITY },
  { keptTurns: 4, outputs: 100, events: 300, eventBytes: 128 * 1024, transcriptBytes: 128 * 1024, messageChars: 16 * 1024 },
  { keptTurns: 1, outputs: 30, events: 200, eventBytes: 96 * 1024, transcriptBytes: 64 * 1024, messageChars: 4 * 1024 },
  { keptTurns: 0, outputs: 30, events: 200, eventBytes: 64 * 1024, transcriptBytes: 48 * 1024, messageChars: 1024 },
];

/** A message whose text passes `maxChars`, cut there with a note of how much was cut. */
function truncateMessage(message: Message, maxChars: number): Message {
  const content = message.content;
  if (content === undefined || content.length <= maxChars) return message;
  return { ...message, content: `${content.slice(0, maxChars)}…[${content.length - maxChars} more characters compacted away]` };
}

/**
 * The transcript bounded for carrying: the opening messages (the task), a note of what was
 * dropped, and the newest messages that fit, each message's text cut at `maxMessageChars`
 * (so the newest turn survives even when its results are large). The cut never separates
 * tool results from the assistant message that opened their calls.
 */
export function compactTranscript(
  messages: readonly Message[],
  maxBytes: number,
  maxMessageChars = Number.POSITIVE_INFINITY,
): { messages: Message[]; dropped: number } {
  const all = Number.isFinite(maxMessageChars) ? messages.map((m) => truncateMessage(m, maxMessageChars)) : messages;
  if (jsonByteLength(all) <= maxBytes) return { messages: [...all], dropped: 0 };
  const firstReply = all.findIndex((m) => m.role === 'assistant');
  const head = firstReply < 0 ? [] : all.slice(0, firstReply);
  let budget = maxBytes - jsonByteLength(head) - 200;
  let start = all.length;
  while (start > head.length) {
    const size = jsonByteLength(all[start - 1]);
    if (size > budget) break;
    budget -= size;
    start -= 1;
  }
  while (start < all.length && all[start]?.role === 'tool') start += 1;
  const dropped = start - head.length;
  const note: Message = { role: 'system', content: `[${dropped} earlier messages of this long run were compacted away]` };
  return { messages: [...head, note, ...all.slice(start)], dropped };
}
