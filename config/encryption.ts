import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { METADATA_ENCODING_KEY, type DataConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { readJsonArrayFile } from './json-array-file';
import { inlineKeyList, keyEntries } from './key-list';

/** `encoding` metadata of an encrypted payload. */
export const encryptedEncoding = 'binary/encrypted';
/** Metadata naming the key that encrypted a payload, so rotation can keep old keys for reading. */
export const encryptionKeyIdKey = 'encryption-key-id';
/** Metadata naming the cipher. */
export const encryptionCipherKey = 'encryption-cipher';
const cipher = 'AES-256-GCM';
const ivBytes = 12;
const tagBytes = 16;

/** One AES-256 key with its id. */
export interface EncryptionKey {
  /** Short, stable, not secret: stored in every payload it encrypts. */
  readonly id: string;
  /** 32 bytes. */
  readonly key: Uint8Array;
}

/** The keys of a codec: the first encrypts; every key decrypts (rotation). */
export type EncryptionKeys = readonly [EncryptionKey, ...EncryptionKey[]];

const text = new TextEncoder();
const fromText = new TextDecoder();

/**
 * A payload codec that encrypts every payload with AES-256-GCM: tool arguments and results,
 * messages, session state and events never reach the Temporal server in plaintext. The key id
 * is stored in each payload's metadata, so after a rotation (a new key first, the old one
 * kept) old runs stay readable. Payloads that were never encrypted pass through on decode.
 *
 * @example
 * import { randomBytes } from 'node:crypto';
 * import { Client, Connection } from '@temporalio/client';
 * const codec = new EncryptionCodec([{ id: '2026-11', key: randomBytes(32) }]);
 * const client = new Client({ connection: await Connection.connect(), dataConverter: { payloadCodecs: [codec] } });
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly byId: ReadonlyMap<string, Uint8Array>;

  /** @throws Error naming a key that is not 32 bytes, or an id used twice. */
  constructor(readonly keys: EncryptionKeys) {
    const byId = new Map<string, Uint8Array>();
    for (const { id, key } of keys) {
      if (key.length !== 32) throw new Error(`encryption key ${id} is ${key.length} bytes; AES-256 needs 32`);
      if (byId.has(id)) throw new Error(`encryption key id ${id} is used twice`);
      byId.set(id, key);
    }
    this.byId = byId;
  }

  /** Id of the key new payloads are encrypted with. */
  get currentKeyId(): string {
    return this.keys[0].id;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { id, key } = this.keys[0];
    return payloads.map((payload) => {
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const iv = randomBytes(ivBytes);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([iv, c.update(plain), c.final(), c.getAuthTag()]);
      return {
        metadata: { [METADATA_ENCODING_KEY]: text.encode(encryptedEncoding), [encryptionKeyIdKey]: text.encode(id), [encryptionCipherKey]: text.encode(cipher) },
        data,
      };
    });
  }

  /** @throws Error naming the key id when a payload was encrypted with a key this codec lacks, or fails authentication. */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
      if (!encoding || fromText.decode(encoding) !== encryptedEncoding) return payload;
      const idBytes = payload.metadata?.[encryptionKeyIdKey];
      const id = idBytes ? fromText.decode(idBytes) : '(none)';
      const key = this.byId.get(id);
      if (!key) throw new Error(`a payload is encrypted with key ${id}, which this process does not have (it has: ${[...this.byId.keys()].join(', ')}); add it to DURABLE_AGENTS_ENCRYPTION_KEYS`);
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (data.length < ivBytes + tagBytes) throw new Error(`an encrypted payload (key ${id}) is truncated: ${data.length} bytes`);
      const d = createDecipheriv('aes-256-gcm', key, data.subarray(0, ivBytes));
      d.setAuthTag(data.subarray(data.length - tagBytes));
      let plain: Buffer;
      try {
        plain = Buffer.concat([d.update(data.subarray(ivBytes, data.length - tagBytes)), d.final()]);
      } catch {
        throw new Error(`an encrypted payload (key ${id}) failed authentication: wrong key material for this id, or the payload was altered`);
      }
      return temporal.api.common.v1.Payload.decode(plain) as Payload;
    });
  }
}

/**
 * The encryption keys from the environment, or undefined when encryption is off:
 * - `DURABLE_AGENTS_ENCRYPTION_KEYS`: `id:base64key` entries separated by commas, the current
 *   key first (older keys after it stay for reading old runs);
 * - `DURABLE_AGENTS_ENCRYPTION_KEYS_FILE`: a JSON array of `{ id, key }` in the same order.
 *
 * @throws Error naming the bad entry (never echoing key material).
 */
export function encryptionKeysFromEnv(env: NodeJS.ProcessEnv = process.env): EncryptionKeys | undefined {
  const keys: EncryptionKey[] = [];
  const inline = env.DURABLE_AGENTS_ENCRYPTION_KEYS?.trim();
  if (inline) {
    keys.push(...inlineKeyList(inline, 'DURABLE_AGENTS_ENCRYPTION_KEYS (id:base64key,...)'));
  }
  const file = env.DURABLE_AGENTS_ENCRYPTION_KEYS_FILE?.trim();
  if (file) keys.push(...keyEntries(readJsonArrayFile('DURABLE_AGENTS_ENCRYPTION_KEYS_FILE', file, '{ id, key }'), `DURABLE_AGENTS_ENCRYPTION_KEYS_FILE ${file}`));
  const [first, ...rest] = keys;
  return first ? [first, ...rest] : undefined;
}

/**
 * The codec of a process without keys: payloads pass through as they are, and an encrypted one
 * is refused with an error naming its key id and where keys are configured (Temporal's own
 * error would only say "Unknown encoding: binary/encrypted").
 */
export class EncryptedPayloadGuard implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  /** @throws Error naming the key id of the first encrypted payload. */
  async decode(payloads: Payload[]): Promise<Payload[]> {
    for (const payload of payloads) {
      const encoding = payload.metadata?.[METADATA_ENCODING_KEY];
      if (encoding && fromText.decode(encoding) === encryptedEncoding) {
        const idBytes = payload.metadata?.[encryptionKeyIdKey];
        throw new Error(`a payload is encrypted with key ${idBytes ? fromText.decode(idBytes) : '(none)'}, and this process has no encryption keys; set DURABLE_AGENTS_ENCRYPTION_KEYS`);
      }
    }
    return payloads;
  }
}

/**
 * The data converter of a process that reads or writes agent runs: with the encryption codec
 * when keys are configured, else with {@link EncryptedPayloadGuard} (payloads as Temporal's
 * default stores them, and a clear error for an encrypted one). Worker, client, agentctl and
 * the HTTP server all use it, so they agree on what the server stores.
 *
 * @throws Error as {@link encryptionKeysFromEnv} does.
 */
export function dataConverterFromEnv(env: NodeJS.ProcessEnv = process.env): DataConverter {
  const keys = encryptionKeysFromEnv(env);
  return { payloadCodecs: [keys ? new EncryptionCodec(keys) : new EncryptedPayloadGuard()] };
}
