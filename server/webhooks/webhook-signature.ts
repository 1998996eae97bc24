import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header that carries a delivery's signature: `sha256=<hex>`. */
export const webhookSignatureHeader = 'X-Durable-Agents-Signature';
/** The header that carries when the delivery was signed, in Unix seconds; it is part of what is signed. */
export const webhookTimestampHeader = 'X-Durable-Agents-Timestamp';
/** How far a delivery's timestamp may be from the server's clock by default: 5 minutes. */
export const defaultWebhookToleranceSeconds = 300;

/**
 * The signature of one delivery: HMAC-SHA256 with the source's secret over
 * `<timestamp>.<raw body>`, as the value of {@link webhookSignatureHeader} (`sha256=<hex>`).
 *
 * @example
 * declare const secret: Uint8Array; // the source's 32 bytes
 * const timestamp = Math.floor(Date.now() / 1000);
 * const body = JSON.stringify({ event: 'deploy_failed' });
 * const headers = { 'X-Durable-Agents-Timestamp': String(timestamp), 'X-Durable-Agents-Signature': signWebhookDelivery(secret, timestamp, body) };
 */
export function signWebhookDelivery(secret: Uint8Array, timestamp: number | string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Why a delivery's signature was refused. */
export type SignatureRefusal = 'missing_signature' | 'malformed_signature' | 'missing_timestamp' | 'malformed_timestamp' | 'bad_signature' | 'stale_timestamp';

/** What {@link checkWebhookSignature} needs: the delivery as received, the source's secrets and the clock. */
export interface SignedDelivery {
  /** The {@link webhookSignatureHeader} header, as sent. */
  readonly signature: string | undefined;
  /** The {@link webhookTimestampHeader} header, as sent. */
  readonly timestamp: string | undefined;
  /** The raw body, exactly as received. */
  readonly body: string;
  /** The source's secrets (more than one while a secret is rotated). */
  readonly secrets: readonly Uint8Array[];
  /** The server's clock, in Unix seconds. */
  readonly nowSeconds: number;
  readonly toleranceSeconds: number;
}

/**
 * Checks a delivery's signature, then its age: a signature by any of the source's secrets over
 * the timestamp and the body, compared in constant time; then a timestamp within the tolerance
 * of the server's clock (a captured delivery replayed later is refused). Pure.
 *
 * @returns undefined when the delivery is good, else why it is not.
 */
export function checkWebhookSignature(delivery: SignedDelivery): SignatureRefusal | undefined {
  const { signature, timestamp, body } = delivery;
  if (signature === undefined || signature.trim() === '') return 'missing_signature';
  const hex = /^sha256=([0-9a-fA-F]{64})$/.exec(signature.trim())?.[1];
  if (hex === undefined) return 'malformed_signature';
  if (timestamp === undefined || timestamp.trim() === '') return 'missing_timestamp';
  if (!/^\d{1,12}$/.test(timestamp.trim())) return 'malformed_timestamp';
  const given = Buffer.from(hex.toLowerCase(), 'hex');
  const signedBy = (secret: Uint8Array) => timingSafeEqual(Buffer.from(signWebhookDelivery(secret, timestamp.trim(), body).slice('sha256='.length), 'hex'), given);
  if (!delivery.secrets.some(signedBy)) return 'bad_signature';
  if (Math.abs(delivery.nowSeconds - Number(timestamp.trim())) > delivery.toleranceSeconds) return 'stale_timestamp';
  return undefined;
}

/** What to tell the sender about a refusal, naming the header and the source. */
export function describeSignatureRefusal(refusal: SignatureRefusal, source: string, delivery: Pick<SignedDelivery, 'timestamp' | 'nowSeconds' | 'toleranceSeconds'>): string {
  const at = `webhook source ${JSON.stringify(source)}`;
  switch (refusal) {
    case 'missing_signature':
      return `${at}: the delivery has no ${webhookSignatureHeader} header (sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">)`;
    case 'malformed_signature':
      return `${at}: ${webhookSignatureHeader} must be sha256=<64 hex digits>`;
    case 'missing_timestamp':
      return `${at}: the delivery has no ${webhookTimestampHeader} header (Unix seconds, part of what is signed)`;
    case 'malformed_timestamp':
      return `${at}: ${webhookTimestampHeader} must be Unix seconds (digits only)`;
    case 'bad_signature':
      return `${at}: bad signature: ${webhookSignatureHeader} is not the HMAC-SHA256 of "<timestamp>.<body>" with this source's secret`;
    case 'stale_timestamp':
      return `${at}: stale timestamp: ${webhookTimestampHeader} ${delivery.timestamp?.trim()} is ${Math.abs(delivery.nowSeconds - Number(delivery.timestamp?.trim()))} s from this server's clock; deliveries are taken within ${delivery.toleranceSeconds} s`;
  }
}
