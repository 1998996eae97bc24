import { z } from 'zod';

/** A 32-byte key with its id, as the encryption and delta-signing keys are configured. */
export interface KeyWithId {
  readonly id: string;
  readonly key: Uint8Array;
}

const keyEntrySchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'key ids are 1-64 characters of A-Z a-z 0-9 . _ -'),
  key: z.string().refine((k) => Buffer.from(k, 'base64').length === 32, 'a key is 32 bytes, base64-encoded (openssl rand -base64 32)'),
});

/**
 * Parses `{ id, key }` entries (key base64, 32 bytes); `names` says what a list calls the two
 * fields (a webhook source's list: `{ source, secret }`).
 *
 * @throws Error `<where> entry <n>: <field>: <problem>`, never echoing key material.
 */
export function keyEntries(entries: readonly unknown[], where: string, names: { readonly id: string; readonly key: string } = { id: 'id', key: 'key' }): KeyWithId[] {
  return entries.map((entry, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error(`${where} entry ${i + 1}: entry: expected an object { ${names.id}, ${names.key} }`);
    const fields = entry as Record<string, unknown>;
    const parsed = keyEntrySchema.safeParse({ id: fields[names.id], key: fields[names.key] });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path[0] === 'id' ? names.id : issue?.path[0] === 'key' ? names.key : 'entry';
      throw new Error(`${where} entry ${i + 1}: ${issue ? `${field}: ${issue.message}` : 'invalid'}`);
    }
    return { id: parsed.data.id, key: Buffer.from(parsed.data.key, 'base64') };
  });
}

/**
 * Parses an `id:base64key` list separated by commas (an environment variable's value).
 *
 * @throws Error as {@link keyEntries}.
 */
export function inlineKeyList(inline: string, where: string): KeyWithId[] {
  const entries = inline.split(',').map((entry) => {
    const at = entry.indexOf(':');
    return at < 0 ? { id: entry.trim(), key: '' } : { id: entry.slice(0, at).trim(), key: entry.slice(at + 1).trim() };
  });
  return keyEntries(entries, where);
}
