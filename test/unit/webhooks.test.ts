import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webhookSourcesFromEnv, type WebhookSource } from '../../config/webhook-sources';
import { checkWebhookSignature, describeSignatureRefusal, signWebhookDelivery, webhookMessage, type SignedDelivery } from '../../server/webhooks';

const secret = randomBytes(32);
const now = 1_800_000_000;
const body = '{"event":"deploy_finished"}';
const signed = (over: Partial<SignedDelivery> = {}): SignedDelivery => ({
  signature: signWebhookDelivery(secret, now, body),
  timestamp: String(now),
  body,
  secrets: [secret],
  nowSeconds: now,
  toleranceSeconds: 300,
  ...over,
});

describe('checkWebhookSignature', () => {
  it('takes the HMAC-SHA256 of "<timestamp>.<body>" as sha256=<hex>', () => {
    const hex = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(signWebhookDelivery(secret, now, body)).toBe(`sha256=${hex}`);
    expect(checkWebhookSignature(signed())).toBeUndefined();
    expect(checkWebhookSignature(signed({ signature: `sha256=${hex.toUpperCase()}` }))).toBeUndefined();
  });

  it('takes a signature by any of the source’s secrets (rotation)', () => {
    expect(checkWebhookSignature(signed({ secrets: [randomBytes(32), secret] }))).toBeUndefined();
  });

  it('refuses another secret’s signature, a changed body, a changed timestamp', () => {
    expect(checkWebhookSignature(signed({ secrets: [randomBytes(32)] }))).toBe('bad_signature');
    expect(checkWebhookSignature(signed({ body: `${body} ` }))).toBe('bad_signature');
    expect(checkWebhookSignature(signed({ timestamp: String(now + 1), nowSeconds: now + 1 }))).toBe('bad_signature');
  });

  it('refuses a timestamp outside the tolerance, on either side', () => {
    expect(checkWebhookSignature(signed({ nowSeconds: now + 301 }))).toBe('stale_timestamp');
    expect(checkWebhookSignature(signed({ nowSeconds: now - 301 }))).toBe('stale_timestamp');
    expect(checkWebhookSignature(signed({ nowSeconds: now + 300 }))).toBeUndefined();
  });

  it('names a missing or malformed header', () => {
    expect(checkWebhookSignature(signed({ signature: undefined }))).toBe('missing_signature');
    expect(checkWebhookSignature(signed({ signature: 'sha1=abc' }))).toBe('malformed_signature');
    expect(checkWebhookSignature(signed({ timestamp: undefined }))).toBe('missing_timestamp');
    expect(checkWebhookSignature(signed({ timestamp: '2026-11-29T10:00:00Z' }))).toBe('malformed_timestamp');
  });

  it('says what was wrong, naming the source and the header', () => {
    expect(describeSignatureRefusal('stale_timestamp', 'ci', { timestamp: String(now), nowSeconds: now + 400, toleranceSeconds: 300 })).toBe(
      `webhook source "ci": stale timestamp: X-Durable-Agents-Timestamp ${now} is 400 s from this server's clock; deliveries are taken within 300 s`,
    );
    expect(describeSignatureRefusal('missing_signature', 'ci', signed())).toMatch(/^webhook source "ci": the delivery has no X-Durable-Agents-Signature header/);
  });
});

describe('webhookMessage', () => {
  const ci: WebhookSource = { source: 'ci', secret };
  const shop: WebhookSource = { source: 'shop', secret, idempotencyField: 'order.id', template: 'Order {{order.id}}: {{ order.items }}' };

  it('takes the raw body as content and the Idempotency-Key header, as <source>:<key>', () => {
    expect(webhookMessage(ci, 's', body, ' d-1 ')).toEqual({ content: body, messageId: 'ci:d-1' });
  });

  it('fills a template from the body, strings as they are and other values as JSON; keys by a body field, a number as its digits', () => {
    expect(webhookMessage(shop, 's', JSON.stringify({ order: { id: 7, items: ['a', 'b'] } }), 'ignored')).toEqual({ content: 'Order 7: ["a","b"]', messageId: 'shop:7' });
  });

  it('falls back to the header when the body lacks the field', () => {
    expect(webhookMessage({ ...shop, template: 'Order' }, 's', JSON.stringify({ order: { items: [] } }), 'h-1')).toMatchObject({ messageId: 'shop:h-1' });
  });

  it('refuses, naming what is wrong: no key, a key that makes no message id, a field the template needs, a body that is not JSON', () => {
    expect(webhookMessage(ci, 's', body, undefined)).toEqual({ type: 'invalid_input', message: 'webhook source "ci": the delivery has no idempotency key: send it as the Idempotency-Key header' });
    expect(webhookMessage(ci, 's', body, 'x'.repeat(126))).toMatchObject({ type: 'invalid_input', message: expect.stringMatching(/header Idempotency-Key: an idempotency key is 1 to 125 printable ASCII/) });
    expect(webhookMessage(shop, 's', JSON.stringify({ order: { id: 'two words' } }), undefined)).toMatchObject({ message: expect.stringContaining('body.order.id: an idempotency key') });
    expect(webhookMessage(shop, 's', JSON.stringify({ order: { id: 1 } }), undefined)).toEqual({ type: 'invalid_input', message: `webhook source "shop": body.order.items: missing (the source's template needs it)` });
    expect(webhookMessage(ci, 's', '{', 'k')).toEqual({ type: 'invalid_input', message: 'webhook source "ci": the body is not JSON' });
  });

  it('refuses a body nested deeper than the server reads, without overflowing the stack', () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expect(webhookMessage(shop, 's', deep, 'k')).toMatchObject({ type: 'invalid_input', message: expect.stringContaining('nested deeper than') });
  });

  it('keeps a source to its sessions: ids and prefixes ending in *', () => {
    const scoped: WebhookSource = { source: 'scoped', secret, sessions: ['ops', 'team-*'] };
    expect(webhookMessage(scoped, 'team-a', body, 'k')).toMatchObject({ messageId: 'scoped:k' });
    expect(webhookMessage(scoped, 'ops', body, 'k')).toMatchObject({ messageId: 'scoped:k' });
    expect(webhookMessage(scoped, 'ops-2', body, 'k')).toEqual({ type: 'forbidden', message: 'webhook source "scoped" may not post to session "ops-2"' });
  });
});

describe('webhookSourcesFromEnv', () => {
  const key = randomBytes(32).toString('base64');

  it('reads source:base64secret entries and a file of sources with their options', () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-sources-'));
    const file = join(dir, 'sources.json');
    writeFileSync(file, JSON.stringify([{ source: 'shop', secret: key, idempotencyField: 'order.id', template: 'Order {{order.id}}', sessions: ['shop-*'] }]));
    const sources = webhookSourcesFromEnv({ DURABLE_AGENTS_WEBHOOK_SECRETS: `ci:${key}, ci:${key}`, DURABLE_AGENTS_WEBHOOK_SECRETS_FILE: file });
    expect(sources.map((s) => [s.source, s.secret.length, s.template ?? null])).toEqual([
      ['ci', 32, null],
      ['ci', 32, null],
      ['shop', 32, 'Order {{order.id}}'],
    ]);
    expect(webhookSourcesFromEnv({})).toEqual([]);
  });

  it('names the bad entry and field, never the secret', () => {
    expect(() => webhookSourcesFromEnv({ DURABLE_AGENTS_WEBHOOK_SECRETS: 'ci:c2hvcnQ=' })).toThrow(/^DURABLE_AGENTS_WEBHOOK_SECRETS \(source:base64secret,...\) entry 1: key: a key is 32 bytes/);
    const dir = mkdtempSync(join(tmpdir(), 'webhook-sources-'));
    const file = join(dir, 'sources.json');
    writeFileSync(file, JSON.stringify([{ source: 'bad name', secret: key }]));
    expect(() => webhookSourcesFromEnv({ DURABLE_AGENTS_WEBHOOK_SECRETS_FILE: file })).toThrow(/entry 1: source: key ids are 1-64 characters/);
    writeFileSync(file, JSON.stringify([{ source: 'shop', secret: key, idempotencyField: 'a..b' }]));
    expect(() => webhookSourcesFromEnv({ DURABLE_AGENTS_WEBHOOK_SECRETS_FILE: file })).toThrow(/entry 1: idempotencyField: a dotted path/);
    writeFileSync(file, JSON.stringify([{ source: 'shop', secret: 'c2hvcnQ=' }]));
    expect(() => webhookSourcesFromEnv({ DURABLE_AGENTS_WEBHOOK_SECRETS_FILE: file })).toThrow(/entry 1: secret: a key is 32 bytes/);
    expect(() => webhookSourcesFromEnv({ DURABLE_AGENTS_WEBHOOK_SECRETS_FILE: file })).not.toThrow(/c2hvcnQ/);
  });
});
