import { maxMessageIdChars, messageIdSchema } from '../../contracts/session';
import { jsonDepthExceeds, maxSafeJsonDepth, type JsonValue } from '../../contracts/json';
import { quoted, wellFormed } from '../../contracts/safe-text';
import type { WebhookSource } from '../../config/webhook-sources';

/** The message a delivery becomes: its content and its id (`<source>:<idempotency key>`). */
export interface WebhookMessage {
  readonly content: string;
  readonly messageId: string;
}

/** Why a delivery cannot become a message: who is to blame (`forbidden`: the source may not post there) and what to say. */
export type DeliveryRefusal = { readonly type: 'invalid_input' | 'forbidden'; readonly message: string };

/** The value at a dotted path of a JSON value, or undefined. */
function at(value: JsonValue, path: string): JsonValue | undefined {
  let here: JsonValue | undefined = value;
  for (const name of path.split('.')) {
    if (here === null || typeof here !== 'object' || Array.isArray(here) || !Object.hasOwn(here, name)) return undefined;
    here = (here as Record<string, JsonValue>)[name];
  }
  return here;
}

/** Whether `sessionId` is one of `patterns` (ids, or prefixes ending in `*`). */
export function isSessionAllowed(patterns: readonly string[] | undefined, sessionId: string): boolean {
  if (!patterns) return true;
  return patterns.some((p) => (p.endsWith('*') ? sessionId.startsWith(p.slice(0, -1)) : sessionId === p));
}

/**
 * The delivery's idempotency key: the source's `idempotencyField` of the body when it has one
 * (a string, or a number as its digits), else the `Idempotency-Key` header.
 */
function idempotencyKey(source: WebhookSource, body: JsonValue, header: string | undefined): { key: string; from: string } | undefined {
  if (source.idempotencyField !== undefined) {
    const value = at(body, source.idempotencyField);
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return { key: String(value), from: `body.${source.idempotencyField}` };
  }
  const trimmed = header?.trim();
  return trimmed ? { key: trimmed, from: 'header Idempotency-Key' } : undefined;
}

/** The content of a delivery: the source's template with `{{path}}` filled from the body, else the raw body. */
function contentOf(source: WebhookSource, body: JsonValue, raw: string): string | DeliveryRefusal {
  if (source.template === undefined) return raw;
  let missing: string | undefined;
  const content = source.template.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_, path: string) => {
    const value = at(body, path);
    if (value === undefined) missing ??= path;
    return typeof value === 'string' ? value : JSON.stringify(value ?? null);
  });
  if (missing !== undefined) return { type: 'invalid_input', message: `webhook source ${JSON.stringify(source.source)}: body.${missing}: missing (the source's template needs it)` };
  return content;
}

/**
 * Turns a signed delivery (its signature checked already) into the session message it becomes,
 * or says why it cannot: a session the source may not post to, a body that is not JSON, no
 * idempotency key, a key that does not make a message id, a field the template needs. Pure.
 */
export function webhookMessage(source: WebhookSource, sessionId: string, raw: string, idempotencyHeader: string | undefined): WebhookMessage | DeliveryRefusal {
  const name = JSON.stringify(source.source);
  if (!isSessionAllowed(source.sessions, sessionId)) return { type: 'forbidden', message: `webhook source ${name} may not post to session ${quoted(sessionId, 100)}` };
  let body: JsonValue;
  try {
    body = JSON.parse(raw) as JsonValue;
  } catch {
    return { type: 'invalid_input', message: `webhook source ${name}: the body is not JSON` };
  }
  if (jsonDepthExceeds(body, maxSafeJsonDepth)) return { type: 'invalid_input', message: `webhook source ${name}: the body is nested deeper than ${maxSafeJsonDepth} levels` };
  const key = idempotencyKey(source, body, idempotencyHeader);
  if (!key) {
    const field = source.idempotencyField !== undefined ? `body.${source.idempotencyField} or ` : '';
    return { type: 'invalid_input', message: `webhook source ${name}: the delivery has no idempotency key: send it as ${field}the Idempotency-Key header` };
  }
  const messageId = `${source.source}:${key.key}`;
  const check = messageIdSchema().safeParse(messageId);
  if (!check.success) {
    const room = maxMessageIdChars - source.source.length - 1;
    return { type: 'invalid_input', message: `webhook source ${name}: ${key.from}: an idempotency key is 1 to ${room} printable ASCII characters without spaces (the message id is "${source.source}:<key>")` };
  }
  const content = contentOf(source, body, raw);
  if (typeof content !== 'string') return content;
  if (content.trim() === '') return { type: 'invalid_input', message: `webhook source ${name}: the message would be empty` };
  return { content: wellFormed(content), messageId };
}
