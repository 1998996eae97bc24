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
 * Parses `{ id, key }` entries (key base64, 32 bytes).
 *
 * @throws Error `<where> entry <n>: <field>: <problem>`, never echoing key material.
 */
export function keyEntries(entries: readonly unknown[], where: string): KeyWithId[] {
  return entries.map((entry, i) => {
    const parsed = keyEntrySchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`${where} entry ${i + 1}: ${issue ? `${issue.path.join('.') || 'entry'}: ${issue.message}` : 'invalid'}`);
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
