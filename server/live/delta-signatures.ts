import { isCallSignature, type DeltaKey, type SignedCall } from '../../config/delta-keys';
import type { DeltaCallSignature, TokenDelta } from '../../contracts/deltas';
import { quoted } from '../../contracts/safe-text';
import { ApiError } from '../errors';

const callKey = (call: SignedCall): string => JSON.stringify([call.workflowId, call.runId, call.activityId, call.attempt]);

function describeCall(delta: TokenDelta): string {
  const execution = delta.runId === undefined ? '' : `execution ${quoted(delta.runId, 100)}, `;
  return `token deltas of run ${quoted(delta.workflowId, 200)} (${execution}activity ${quoted(delta.activityId, 100)}, attempt ${delta.attempt})`;
}

const keyIds = (keys: readonly DeltaKey[]): string => `key id${keys.length > 1 ? 's' : ''} ${keys.map((k) => quoted(k.id, 64)).join(', ')}`;

/** Why the deltas of one call are refused, or undefined when a signature of `keys` vouches for them. */
function refusal(keys: readonly DeltaKey[], delta: TokenDelta, signed: DeltaCallSignature | undefined): string | undefined {
  if (delta.runId === undefined) return `${describeCall(delta)} name no runId, so no signature can bind them to their model call; this server takes only deltas signed with its delta keys (${keyIds(keys)}): give the worker DURABLE_AGENTS_DELTAS_KEYS`;
  if (!signed) return `${describeCall(delta)} are not signed; this server takes only deltas signed with its delta keys (${keyIds(keys)}): give the worker DURABLE_AGENTS_DELTAS_KEYS, as the server has them`;
  const key = keys.find((k) => k.id === signed.keyId);
  if (!key) return `${describeCall(delta)} are signed with key ${quoted(signed.keyId, 100)}, which this server does not have (its ${keyIds(keys)}); add that key to the server's DURABLE_AGENTS_DELTAS_KEYS, or sign with one of these`;
  if (!isCallSignature(key.key, signed, signed.signature)) return `${describeCall(delta)} carry a signature by key ${quoted(key.id, 64)} that does not match: the worker's key under that id differs from this server's`;
  return undefined;
}

/**
 * Refuses a post of token deltas unless every model call it carries deltas of is signed with one
 * of the server's delta keys (`signatures` of the batch, one per call): deltas come only from the
 * worker that runs the call, so a leaked publisher token alone cannot put words in an agent's
 * mouth. Without keys, any delta passes (the publisher token, scoped to task queues, is then the
 * only guard).
 *
 * @throws ApiError `forbidden` naming the run, the call and the key id(s).
 */
export function checkDeltaSignatures(keys: readonly DeltaKey[], deltas: readonly TokenDelta[], signatures: readonly DeltaCallSignature[] = []): void {
  if (keys.length === 0 || deltas.length === 0) return;
  const byCall = new Map<string, DeltaCallSignature>();
  for (const signed of signatures) if (!byCall.has(callKey(signed))) byCall.set(callKey(signed), signed);
  const vouched = new Set<string>();
  for (const delta of deltas) {
    const call = delta.runId === undefined ? undefined : callKey({ workflowId: delta.workflowId, runId: delta.runId, activityId: delta.activityId, attempt: delta.attempt });
    if (call !== undefined && vouched.has(call)) continue;
    const why = refusal(keys, delta, call === undefined ? undefined : byCall.get(call));
    if (why !== undefined) throw new ApiError('forbidden', why);
    vouched.add(call as string);
  }
}
