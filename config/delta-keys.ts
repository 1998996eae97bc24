import { createHmac, timingSafeEqual } from 'node:crypto';
import { inlineKeyList } from './key-list';

/** One key that signs the token deltas of model calls, with its id. */
export interface DeltaKey {
  /** Short, stable, not secret: sent with every signature, named in every refusal. */
  readonly id: string;
  /** 32 bytes. */
  readonly key: Uint8Array;
}

/** The model call a signature binds deltas to. */
export interface SignedCall {
  readonly workflowId: string;
  readonly runId: string;
  readonly activityId: string;
  readonly attempt: number;
}

/**
 * The signature of one model call's deltas: HMAC-SHA256 with `key` over the JSON array
 * `[workflowId, runId, activityId, attempt]`, base64url (what `POST /api/deltas` checks).
 */
export function signCall(key: Uint8Array, call: SignedCall): string {
  return createHmac('sha256', key).update(JSON.stringify([call.workflowId, call.runId, call.activityId, call.attempt])).digest('base64url');
}

/** Whether `signature` is the signature of `call` with `key` (compared in constant time). */
export function isCallSignature(key: Uint8Array, call: SignedCall, signature: string): boolean {
  const expected = Buffer.from(signCall(key, call));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * The delta keys from `DURABLE_AGENTS_DELTAS_KEYS`: `id:base64key` entries separated by commas,
 * the same value on workers and API servers. Workers sign with the first; servers take deltas
 * signed with any of them (rotation: add the new key second everywhere, then move it first, then
 * drop the old one). Empty when unset.
 *
 * @throws Error naming the bad entry (never echoing key material), or an id used twice.
 */
export function deltaKeysFromEnv(env: { readonly DURABLE_AGENTS_DELTAS_KEYS?: string } = process.env): DeltaKey[] {
  const inline = env.DURABLE_AGENTS_DELTAS_KEYS?.trim();
  if (!inline) return [];
  const keys = inlineKeyList(inline, 'DURABLE_AGENTS_DELTAS_KEYS (id:base64key,...)');
  checkDeltaKeys(keys, 'DURABLE_AGENTS_DELTAS_KEYS');
  return keys;
}

/** @throws Error naming a key that is not 32 bytes, or an id used twice (`where`: the option or variable). */
export function checkDeltaKeys(keys: readonly DeltaKey[], where: string): void {
  const ids = new Set<string>();
  for (const { id, key } of keys) {
    if (key.length !== 32) throw new Error(`${where}: delta key ${JSON.stringify(id)} is ${key.length} bytes; it needs 32`);
    if (ids.has(id)) throw new Error(`${where}: delta key id ${JSON.stringify(id)} is used twice`);
    ids.add(id);
  }
}
