/**
 * A cheap, deterministic digest of a transcript prefix, computed the same way in the workflow
 * and on the worker. The digest of messages `[0, n)` is 64-bit FNV-1a over the UTF-8 bytes
 * of each message's canonical JSON followed by `\n`, so it can be extended message by message
 * ("chained") without rehashing the prefix. Not cryptographic: it detects a worker whose
 * cached transcript differs from the run's, nothing more.
 */
import { canonicalJson } from '../../../contracts/canonical-json';
import type { Message } from '../../../contracts/messages';

/** Digest of the empty transcript (the FNV-1a 64-bit offset basis). */
export const emptyDigest = 'cbf29ce484222325';

export { canonicalJson };

interface State {
  hi: number;
  lo: number;
}

function parseDigest(digest: string): State {
  if (!/^[0-9a-f]{16}$/.test(digest)) throw new Error(`invalid transcript digest ${JSON.stringify(digest)}: expected 16 hex digits`);
  return { hi: parseInt(digest.slice(0, 8), 16), lo: parseInt(digest.slice(8), 16) };
}

function formatDigest({ hi, lo }: State): string {
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/** One FNV-1a step: h = (h xor byte) * 0x100000001b3 mod 2^64, on two 32-bit halves. */
function mix(state: State, byte: number): void {
  const lo = (state.lo ^ byte) >>> 0;
  const low = lo * 0x1b3; // < 2^41: exact in a double
  const carry = Math.floor(low / 0x1_0000_0000);
  // prime = 2^40 + 0x1b3; the 2^40 part moves lo, shifted by 8, into the high half.
  state.hi = (Math.imul(state.hi, 0x1b3) + carry + (lo << 8)) >>> 0;
  state.lo = low >>> 0;
}

function mixText(state: State, text: string): void {
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        i++;
      }
    }
    if (code < 0x80) mix(state, code);
    else if (code < 0x800) {
      mix(state, 0xc0 | (code >> 6));
      mix(state, 0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      mix(state, 0xe0 | (code >> 12));
      mix(state, 0x80 | ((code >> 6) & 0x3f));
      mix(state, 0x80 | (code & 0x3f));
    } else {
      mix(state, 0xf0 | (code >> 18));
      mix(state, 0x80 | ((code >> 12) & 0x3f));
      mix(state, 0x80 | ((code >> 6) & 0x3f));
      mix(state, 0x80 | (code & 0x3f));
    }
  }
}

/**
 * 64-bit FNV-1a of a string's UTF-8 bytes, continuing from `from` (default: the offset basis).
 *
 * @throws Error when `from` is not a 16-hex-digit digest.
 * @example fnv1a64('a') // 'af63dc4c8601ec8c'
 */
export function fnv1a64(text: string, from: string = emptyDigest): string {
  const state = parseDigest(from);
  mixText(state, text);
  return formatDigest(state);
}

/**
 * Extends the digest of a transcript prefix by more messages.
 *
 * @throws Error when `digest` is not a valid digest.
 * @example chainDigest(emptyDigest, [{ role: 'user', content: 'hi' }]) // digest of that one-message prefix
 */
export function chainDigest(digest: string, messages: readonly Message[]): string {
  const state = parseDigest(digest);
  for (const message of messages) mixText(state, `${canonicalJson(message)}\n`);
  return formatDigest(state);
}

/** Digests of every prefix: `result[i]` is the digest of `messages.slice(0, i)`. */
export function prefixDigests(messages: readonly Message[]): string[] {
  const digests = [emptyDigest];
  let current = emptyDigest;
  for (const message of messages) {
    current = chainDigest(current, [message]);
    digests.push(current);
  }
  return digests;
}
