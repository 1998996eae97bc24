import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { quoted } from '../../contracts/safe-text';

/** One key that signs approval links, with its id (named in every token, so keys rotate). */
export interface ApprovalLinkKey {
  /** Short, stable, not secret: carried in each token. */
  readonly id: string;
  /** 32 bytes. */
  readonly key: Uint8Array;
}

/** Who may answer a link: one of these people by name, or anyone answering for a role (a label, e.g. `on-call`). */
export const approverSchema = z.union([
  z.object({ names: z.array(z.string().trim().min(1).max(100)).min(1).max(50) }).strict(),
  z.object({ role: z.string().trim().min(1).max(100) }).strict(),
]);
export type Approver = z.infer<typeof approverSchema>;

/** What a link token says: which call of which run, on which arguments, who may answer and until when. */
export const approvalLinkClaimsSchema = z
  .object({
    /** Format version. */
    v: z.literal(1),
    /** The id of the key that signed it. */
    kid: z.string().min(1).max(64),
    /** The token's own id (random): what a server remembers of a used link. */
    jti: z.string().min(1).max(64),
    /** The run's workflow id. */
    run: z.string().min(1).max(1000),
    toolCallId: z.string().min(1).max(200),
    /** The approval digest (`sha256:<hex>`) of the call as it waited when the link was minted. */
    digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
    approver: approverSchema,
    /** Minted at, and valid until, in Unix seconds. */
    iat: z.number().int(),
    exp: z.number().int(),
  })
  .strict();
export type ApprovalLinkClaims = z.infer<typeof approvalLinkClaimsSchema>;

/** Why a token is refused before the run is asked. */
export type LinkTokenRefusal =
  | { readonly type: 'malformed'; readonly message: string }
  | { readonly type: 'unknown_key'; readonly message: string }
  | { readonly type: 'bad_signature'; readonly message: string }
  | { readonly type: 'expired'; readonly message: string; readonly claims: ApprovalLinkClaims };

/** Longest token taken (a link with fifty long names stays well below it). */
export const maxLinkTokenChars = 8000;

function mac(key: Uint8Array, body: string): string {
  return createHmac('sha256', key).update(`durable-agents approval link.${body}`).digest('base64url');
}

/**
 * A signed link token: `<base64url of the claims' JSON>.<base64url HMAC-SHA256>` with `key`
 * (the claims name its id). No secret is in it, and nothing in it is encrypted: a run id, a call
 * id, a digest, the approvers and the times are readable by whoever holds the link.
 */
export function signApprovalLink(key: ApprovalLinkKey, claims: Omit<ApprovalLinkClaims, 'v' | 'kid'>): string {
  const body = Buffer.from(JSON.stringify({ v: 1, kid: key.id, ...claims })).toString('base64url');
  return `${body}.${mac(key.key, body)}`;
}

/**
 * Checks a token: well-formed, signed by one of `keys` (the one its claims name), not expired at
 * `nowSeconds`. The signature is checked before anything the claims say is believed (bar the key
 * id that picks the key), and compared in constant time.
 *
 * @returns the claims, or why the token is refused (the message never echoes key material).
 */
export function verifyApprovalLink(token: string, keys: readonly ApprovalLinkKey[], nowSeconds: number): { readonly claims: ApprovalLinkClaims } | LinkTokenRefusal {
  const malformed = (why: string): LinkTokenRefusal => ({ type: 'malformed', message: `the link is not a valid approval link: ${why}` });
  if (token.length > maxLinkTokenChars) return malformed(`it is ${token.length} characters long; at most ${maxLinkTokenChars}`);
  const parts = token.split('.');
  if (parts.length !== 2 || !/^[A-Za-z0-9_-]+$/.test(parts[0] ?? '') || !/^[A-Za-z0-9_-]+$/.test(parts[1] ?? '')) return malformed('expected two base64url parts separated by a dot (was it cut when copied?)');
  const [body = '', signature = ''] = parts;
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return malformed('its first part is not base64url-encoded JSON');
  }
  const kid = typeof json === 'object' && json !== null && typeof (json as { kid?: unknown }).kid === 'string' ? (json as { kid: string }).kid : undefined;
  if (kid === undefined) return malformed('it names no key id');
  const key = keys.find((k) => k.id === kid);
  if (!key) return { type: 'unknown_key', message: `the link was signed with key ${quoted(kid, 64)}, which this server does not have (it was removed, or the link comes from another deployment)` };
  const expected = Buffer.from(mac(key.key, body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { type: 'bad_signature', message: `the link's signature does not match (key ${quoted(kid, 64)}): it was changed after it was minted` };
  const parsed = approvalLinkClaimsSchema.safeParse(json);
  if (!parsed.success) return malformed(`its claims do not parse (${parsed.error.issues[0]?.path.join('.') || 'claims'}: ${parsed.error.issues[0]?.message ?? 'invalid'})`);
  const claims = parsed.data;
  if (nowSeconds >= claims.exp) return { type: 'expired', claims, message: `the link expired at ${new Date(claims.exp * 1000).toISOString()}; ask for a new one` };
  return { claims };
}
