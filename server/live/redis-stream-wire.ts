import { z } from 'zod';
import { tokenDeltaSchema, type TokenDelta } from '../../contracts/deltas';
import type { LiveMessage } from './live-broker';

/**
 * The layout of live messages in Redis streams, pure: one stream per run
 * (`<prefix><workflowId>`), one entry per posted batch of the run: `o` the server that took the
 * post, `d` the deltas as a JSON array (absent when none), `e` the run's newest seq when a worker
 * announced one (absent when none).
 */

/** One stream entry: its id and its fields as Redis answers them (`[name, value, ...]`). */
export interface StreamEntry {
  readonly id: string;
  readonly fields: readonly string[];
}

/** A decoded entry. */
export interface DecodedEntry {
  readonly origin: string;
  readonly message: LiveMessage;
}

const deltasSchema = z.array(tokenDeltaSchema).max(10_000);

/** The stream of a run. */
export function runStreamKey(prefix: string, workflowId: string): string {
  return `${prefix}${workflowId}`;
}

/** The workflow id of a run's stream, or undefined when `key` is not one under `prefix`. */
export function workflowIdOfKey(prefix: string, key: string): string | undefined {
  return key.startsWith(prefix) && key.length > prefix.length ? key.slice(prefix.length) : undefined;
}

/** The fields of an entry: `o`, then `d` and `e` when there is something to say. */
export function entryFields(origin: string, message: LiveMessage): string[] {
  const fields = ['o', origin];
  if (message.deltas.length > 0) fields.push('d', JSON.stringify(message.deltas));
  if (message.lastSeq !== undefined) fields.push('e', String(message.lastSeq));
  return fields;
}

/**
 * The message of an entry, or undefined when it is not one (written by someone else, or cut):
 * whatever sits in the broker is checked like any other input before it reaches subscribers.
 */
export function decodeEntry(fields: readonly string[]): DecodedEntry | undefined {
  const values = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) values.set(String(fields[i]), String(fields[i + 1]));
  const origin = values.get('o');
  if (origin === undefined) return undefined;
  let deltas: TokenDelta[] = [];
  const rawDeltas = values.get('d');
  if (rawDeltas !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(rawDeltas);
    } catch {
      return undefined;
    }
    const parsed = deltasSchema.safeParse(json);
    if (!parsed.success) return undefined;
    deltas = parsed.data;
  }
  const rawSeq = values.get('e');
  const lastSeq = rawSeq === undefined ? undefined : Number(rawSeq);
  if (lastSeq !== undefined && !(Number.isSafeInteger(lastSeq) && lastSeq >= 0)) return undefined;
  return { origin, message: { deltas, ...(lastSeq !== undefined ? { lastSeq } : {}) } };
}

function isEntry(value: unknown): value is [string, unknown[]] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && Array.isArray(value[1]);
}

/** The entries of an XRANGE / XREVRANGE reply (`[[id, [field, value, ...]], ...]`). */
export function parseEntries(reply: unknown): StreamEntry[] {
  if (!Array.isArray(reply)) return [];
  return reply.filter(isEntry).map(([id, fields]) => ({ id, fields: fields.map(String) }));
}

/**
 * The streams of an XREAD reply: an array of `[key, entries]` (RESP2), or a map from key to
 * entries (RESP3, as a Map or a plain object); null when the read timed out.
 */
export function parseReadReply(reply: unknown): { key: string; entries: StreamEntry[] }[] {
  if (reply === null || reply === undefined) return [];
  const pairs: [unknown, unknown][] = Array.isArray(reply)
    ? reply.filter((item): item is [unknown, unknown] => Array.isArray(item) && item.length === 2)
    : reply instanceof Map
      ? [...(reply as Map<unknown, unknown>)]
      : typeof reply === 'object'
        ? Object.entries(reply as Record<string, unknown>)
        : [];
  return pairs.map(([key, entries]) => ({ key: String(key), entries: parseEntries(entries) }));
}

/** The id that comes right before `id` in a reverse range (exclusive bound). */
export function before(id: string): string {
  return `(${id}`;
}

/**
 * Gathers the deltas of a run's current model call from its entries read newest first, page by
 * page: the call of the newest delta (activity id and attempt); older entries count until one
 * holds a delta of another call. `add` answers true once no older entry can matter.
 */
export class CurrentCallCollector {
  private call: { activityId: string; attempt: number } | undefined;
  private readonly pages: TokenDelta[][] = [];
  private complete = false;

  /** Takes the deltas of one entry (entries newest first); true when done. */
  add(deltas: readonly TokenDelta[]): boolean {
    if (this.complete) return true;
    const kept: TokenDelta[] = [];
    for (let i = deltas.length - 1; i >= 0; i--) {
      const delta = deltas[i] as TokenDelta;
      this.call ??= { activityId: delta.activityId, attempt: delta.attempt };
      if (delta.activityId !== this.call.activityId || delta.attempt !== this.call.attempt) {
        this.complete = true;
        break;
      }
      kept.push(delta);
    }
    this.pages.push(kept);
    return this.complete;
  }

  /** The deltas gathered, oldest first. */
  deltas(): TokenDelta[] {
    return this.pages.flat().reverse();
  }
}
