/**
 * What an AG-UI resume entry approved: the digest of the call the client was shown. An AG-UI
 * client keeps the run's tool calls in its messages (`toolCalls` of assistant messages, built from
 * `TOOL_CALL_START`/`TOOL_CALL_ARGS`) and sends them back with every request, as the AI SDK chat
 * sends its tool parts; a resume entry is bound to the call its interrupt answers there, so a call
 * that asks again with other arguments (a rewind, a re-plan) is not approved on the old screen.
 */
import { approvalDigest } from '../../contracts/approval-digest';

/**
 * The tool calls of the client's assistant messages, by call id: the digest of each as shown. The
 * last call under an id wins: a session's thread shows several runs, whose call ids repeat, in order.
 */
export function shownCallDigests(messages: readonly unknown[]): Map<string, string> {
  const digests = new Map<string, string>();
  for (const message of messages) {
    if (!isRecord(message) || message.role !== 'assistant' || !Array.isArray(message.toolCalls)) continue;
    for (const call of message.toolCalls as unknown[]) {
      if (!isRecord(call) || typeof call.id !== 'string' || !isRecord(call.function)) continue;
      const { name, arguments: text } = call.function;
      if (typeof name !== 'string' || typeof text !== 'string') continue;
      const args = parsedArguments(text);
      if (args.ok) digests.set(call.id, approvalDigest(name, args.value));
    }
  }
  return digests;
}

/**
 * The digest a resume entry's decision is bound to: the one its payload names, else its
 * `metadata.digest` (the interrupt carries it there for clients that echo it), else the digest of
 * the call the client's messages show under the interrupt's id; none when the client shows nothing.
 */
export function resumeDigest(entry: { interruptId: string; payload?: unknown; metadata?: Record<string, unknown> }, shown: ReadonlyMap<string, string>): string | undefined {
  if (isRecord(entry.payload) && entry.payload.digest !== undefined) return undefined; // the payload's own, validated as a decision
  if (typeof entry.metadata?.digest === 'string') return entry.metadata.digest;
  return shown.get(entry.interruptId);
}

function parsedArguments(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
