/** Recordings of an encrypted deployment: read after decoding with its keys, refused without them. */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PayloadCodec } from '@temporalio/common';
import { EncryptionCodec } from '../../config/encryption';
import { decodeHistoryJson } from '../../testing/eval/history-codecs';
import { readRecording } from '../../testing/eval/recording';

const recorded = JSON.parse(readFileSync(join(__dirname, '../../examples/watchlist/recorded-runs/1-add-approved.json'), 'utf8')) as unknown;
const codec = new EncryptionCodec([{ id: 'k-test', key: randomBytes(32) }]);

/**
 * A codec whose decode encrypts: walking a history with it encrypts every payload (patch markers
 * too, which a worker leaves plain; the integration test reads a real encrypted deployment's).
 */
function encoding(with_: PayloadCodec): PayloadCodec {
  return { encode: (p) => with_.decode(p), decode: (p) => with_.encode(p) };
}

it('reads an encrypted recording once its payloads are decoded with the deployment codec, as the plain one', async () => {
  const encrypted = await decodeHistoryJson(recorded, [encoding(codec)]);
  expect(() => readRecording(encrypted, 'encrypted.json')).toThrow();

  const decoded = readRecording(await decodeHistoryJson(encrypted, [codec]), 'decoded.json');
  const plain = readRecording(recorded, 'decoded.json');
  expect(decoded).toEqual(plain);
  expect(decoded.decisions).toHaveLength(1);
});

it('names the key a recording needs when the codec lacks it', async () => {
  const encrypted = await decodeHistoryJson(recorded, [encoding(codec)]);
  const other = new EncryptionCodec([{ id: 'k-other', key: randomBytes(32) }]);
  await expect(decodeHistoryJson(encrypted, [other])).rejects.toThrow(/encrypted with key k-test, which this process does not have/);
});
