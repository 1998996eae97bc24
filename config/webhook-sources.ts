import { z } from 'zod';
import { readJsonArrayFile } from './json-array-file';
import { inlineKeyList, keyEntries } from './key-list';

/**
 * One system that may post messages into sessions through
 * `POST /api/sessions/:id/webhooks/<source>`: its name, its secret (the credential: deliveries are
 * signed with it), and how its deliveries become messages.
 */
export interface WebhookSource {
  /** The name in the URL; 1-64 characters of A-Z a-z 0-9 . _ - (not secret). */
  readonly source: string;
  /** 32 bytes. Listing a source twice with two secrets takes deliveries signed with either (rotation). */
  readonly secret: Uint8Array;
  /**
   * The body field (a dotted path, e.g. `event.id`) that holds the delivery's idempotency key;
   * without it, or when the body lacks it, the `Idempotency-Key` header.
   */
  readonly idempotencyField?: string;
  /**
   * The message's content, with `{{path}}` replaced by the body's field at that dotted path
   * (strings as they are, other values as JSON). Without it, the raw body is the content.
   */
  readonly template?: string;
  /** The sessions it may post to: session ids, or prefixes ending in `*`. Without it, any session. */
  readonly sessions?: readonly string[];
}

const fieldPath = z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'a dotted path of field names, e.g. event.id').max(200);

const sourceOptionsSchema = z.object({
  idempotencyField: fieldPath.optional(),
  template: z.string().min(1).max(10_000).optional(),
  sessions: z.array(z.string().min(1).max(1000)).min(1).max(1000).optional(),
});

/**
 * The webhook sources of the environment:
 * - `DURABLE_AGENTS_WEBHOOK_SECRETS`: `source:base64secret` entries separated by commas (each
 *   secret 32 bytes: `openssl rand -base64 32`); such a source takes the raw body as content and
 *   the `Idempotency-Key` header as its key;
 * - `DURABLE_AGENTS_WEBHOOK_SECRETS_FILE`: a JSON file, an array of
 *   `{ source, secret, idempotencyField?, template?, sessions? }`.
 * Empty when neither is set: the webhook route then refuses every source.
 *
 * @throws Error naming the variable and the bad entry (never echoing a secret).
 */
export function webhookSourcesFromEnv(env: { readonly DURABLE_AGENTS_WEBHOOK_SECRETS?: string; readonly DURABLE_AGENTS_WEBHOOK_SECRETS_FILE?: string } = process.env): WebhookSource[] {
  const sources: WebhookSource[] = [];
  const inline = env.DURABLE_AGENTS_WEBHOOK_SECRETS?.trim();
  if (inline) {
    for (const { id, key } of inlineKeyList(inline, 'DURABLE_AGENTS_WEBHOOK_SECRETS (source:base64secret,...)')) sources.push({ source: id, secret: key });
  }
  const file = env.DURABLE_AGENTS_WEBHOOK_SECRETS_FILE?.trim();
  if (file) {
    const where = `DURABLE_AGENTS_WEBHOOK_SECRETS_FILE ${file}`;
    const entries = readJsonArrayFile('DURABLE_AGENTS_WEBHOOK_SECRETS_FILE', file, '{ source, secret, idempotencyField?, template?, sessions? }');
    const secrets = keyEntries(entries, where, { id: 'source', key: 'secret' });
    entries.forEach((entry, i) => {
      // The options beside the secret; source and secret were checked above.
      const options = sourceOptionsSchema.extend({ source: z.unknown(), secret: z.unknown() }).strict().safeParse(entry);
      if (!options.success) {
        const issue = options.error.issues[0];
        throw new Error(`${where} entry ${i + 1}: ${issue ? `${issue.path.join('.') || 'entry'}: ${issue.message}` : 'invalid'}`);
      }
      const { id, key } = secrets[i] as (typeof secrets)[number];
      const { idempotencyField, template, sessions } = options.data;
      sources.push({ source: id, secret: key, ...(idempotencyField !== undefined ? { idempotencyField } : {}), ...(template !== undefined ? { template } : {}), ...(sessions !== undefined ? { sessions } : {}) });
    });
  }
  return sources;
}
