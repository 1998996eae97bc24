import { createHash } from 'node:crypto';
import { approvalDigest } from '../../contracts/approval-digest';
import { canonicalJson } from '../../contracts/canonical-json';
import { sha256Hex } from '../../contracts/sha256';

const nodeSha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Hex', () => {
  it.each([
    ['the empty text', ''],
    ['abc', 'abc'],
    ['a text of 55 bytes (one block with its length)', 'x'.repeat(55)],
    ['a text of 56 bytes (the length needs a second block)', 'x'.repeat(56)],
    ['a text of 64 bytes', 'y'.repeat(64)],
    ['several blocks', 'The quick brown fox jumps over the lazy dog. '.repeat(40)],
    ['two- three- and four-byte characters', 'café — 東京 🚀 ok'],
    ['a lone surrogate (encoded as U+FFFD)', 'a\ud800b'],
  ])('matches node:crypto for %s', (_what, text) => {
    expect(sha256Hex(text)).toBe(nodeSha256(text));
  });
});

describe('approvalDigest', () => {
  it('is sha256 of the canonical JSON of the name and arguments: key order does not matter, values do', () => {
    const digest = approvalDigest('transfer', { to: 'acme', amount: 500 });
    expect(digest).toBe(`sha256:${nodeSha256(canonicalJson({ args: { amount: 500, to: 'acme' }, name: 'transfer' }))}`);
    expect(approvalDigest('transfer', { amount: 500, to: 'acme' })).toBe(digest);
    expect(approvalDigest('transfer', { to: 'acme', amount: 5000 })).not.toBe(digest);
    expect(approvalDigest('refund', { to: 'acme', amount: 500 })).not.toBe(digest);
  });
});
