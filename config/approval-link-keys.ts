import { inlineKeyList, type KeyWithId } from './key-list';

/**
 * The keys that sign approval links, from `DURABLE_AGENTS_APPROVAL_LINK_KEYS`: `id:base64key`
 * entries (32 bytes each, `openssl rand -base64 32`) separated by commas, the same value on every
 * API server that serves the links. The first signs new links; links signed with any of them are
 * taken (rotation: add the new key second everywhere, then move it first, then drop the old one
 * once the links it signed have expired). Empty when unset: no links are minted or taken.
 *
 * @throws Error naming the bad entry (never echoing key material), or an id used twice.
 */
export function approvalLinkKeysFromEnv(env: { readonly DURABLE_AGENTS_APPROVAL_LINK_KEYS?: string } = process.env): KeyWithId[] {
  const inline = env.DURABLE_AGENTS_APPROVAL_LINK_KEYS?.trim();
  if (!inline) return [];
  const keys = inlineKeyList(inline, 'DURABLE_AGENTS_APPROVAL_LINK_KEYS (id:base64key,...)');
  checkApprovalLinkKeys(keys, 'DURABLE_AGENTS_APPROVAL_LINK_KEYS');
  return keys;
}

/** @throws Error naming a key that is not 32 bytes, or an id used twice (`where`: the option or variable). */
export function checkApprovalLinkKeys(keys: readonly KeyWithId[], where: string): void {
  const ids = new Set<string>();
  for (const { id, key } of keys) {
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(id)) throw new Error(`${where}: approval link key id ${JSON.stringify(id.slice(0, 64))}: key ids are 1-64 characters of A-Z a-z 0-9 . _ -`);
    if (key.length !== 32) throw new Error(`${where}: approval link key ${JSON.stringify(id)} is ${key.length} bytes; it needs 32`);
    if (ids.has(id)) throw new Error(`${where}: approval link key id ${JSON.stringify(id)} is used twice`);
    ids.add(id);
  }
}
