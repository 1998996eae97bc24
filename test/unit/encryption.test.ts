import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec, encryptionKeysFromEnv } from '../../config/encryption';

const a = { id: 'a', key: randomBytes(32) };
const b = { id: 'b', key: randomBytes(32) };
const payload = defaultPayloadConverter.toPayload({ secret: 'plain text' });

describe('EncryptionCodec', () => {
  it('round-trips a payload and leaves no plaintext in the encoded one', async () => {
    const codec = new EncryptionCodec([a]);
    const [encoded] = await codec.encode([payload]);
    expect(Buffer.from(encoded?.data ?? []).includes('plain text')).toBe(false);
    expect(Buffer.from(encoded?.metadata?.['encryption-key-id'] ?? []).toString()).toBe('a');
    const [decoded] = await codec.decode([encoded!]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({ secret: 'plain text' });
  });

  it('uses a fresh IV for each payload', async () => {
    const [x, y] = await new EncryptionCodec([a]).encode([payload, payload]);
    expect(Buffer.from(x!.data!).equals(Buffer.from(y!.data!))).toBe(false);
  });

  it('decodes with any of its keys after a rotation, and encodes with the first', async () => {
    const [old] = await new EncryptionCodec([a]).encode([payload]);
    const rotated = new EncryptionCodec([b, a]);
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([old!]))[0]!)).toEqual({ secret: 'plain text' });
    expect(rotated.currentKeyId).toBe('b');
  });

  it('passes payloads that were never encrypted through', async () => {
    expect(await new EncryptionCodec([a]).decode([payload])).toEqual([payload]);
  });

  it('names a missing key id, and refuses an altered payload', async () => {
    const [encoded] = await new EncryptionCodec([a]).encode([payload]);
    await expect(new EncryptionCodec([b]).decode([encoded!])).rejects.toThrow(/encrypted with key a, which this process does not have \(it has: b\)/);
    const altered = Buffer.from(encoded!.data!);
    altered[20] = (altered[20] ?? 0) ^ 1;
    await expect(new EncryptionCodec([a]).decode([{ ...encoded!, data: altered }])).rejects.toThrow(/failed authentication/);
  });

  it('refuses keys of the wrong size and ids used twice', () => {
    expect(() => new EncryptionCodec([{ id: 'short', key: randomBytes(16) }])).toThrow(/short is 16 bytes; AES-256 needs 32/);
    expect(() => new EncryptionCodec([a, { ...b, id: 'a' }])).toThrow(/id a is used twice/);
  });
});

describe('encryption keys from env', () => {
  it('is off without keys', () => {
    expect(encryptionKeysFromEnv({})).toBeUndefined();
  });

  it('reads id:base64 entries, the current key first', () => {
    const keys = encryptionKeysFromEnv({ DURABLE_AGENTS_ENCRYPTION_KEYS: `new:${b.key.toString('base64')},old:${a.key.toString('base64')}` });
    expect(keys?.map((k) => k.id)).toEqual(['new', 'old']);
    expect(Buffer.from(keys![0].key).equals(b.key)).toBe(true);
  });

  it('names the bad entry without echoing key material', () => {
    const short = randomBytes(8).toString('base64');
    let message = '';
    try {
      encryptionKeysFromEnv({ DURABLE_AGENTS_ENCRYPTION_KEYS: `ok:${a.key.toString('base64')},bad:${short}` });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/DURABLE_AGENTS_ENCRYPTION_KEYS .* entry 2: key: a key is 32 bytes, base64-encoded/);
    expect(message).not.toContain(short);
    expect(() => encryptionKeysFromEnv({ DURABLE_AGENTS_ENCRYPTION_KEYS: 'no-key-here' })).toThrow(/entry 1: key/);
  });
});
