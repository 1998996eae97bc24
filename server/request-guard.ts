import type { Context, MiddlewareHandler } from 'hono';
import { quoted } from '../contracts/safe-text';
import { ApiError } from './errors';

/** Largest request body read by default: 1 MiB. */
export const defaultMaxBodyBytes = 1024 * 1024;

/** Largest WebSocket message taken by default: 256 KiB (larger ones close the socket, code 1009). */
export const defaultMaxWebSocketMessageBytes = 256 * 1024;

/** Hosts a local-dev server answers to (any port). */
const loopbackHosts: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** What decides which origins may use the server. */
export interface OriginPolicy {
  /** Local-dev mode: only loopback hosts and origins (a request without a token acts as admin). */
  readonly localDev: boolean;
  /** Origins let in besides the server's own (the CORS origins); `*` lets any in, except in local-dev mode. */
  readonly allowedOrigins: readonly string[];
}

function parsedOrigin(origin: string): URL | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Why `origin` may not use a server whose request URL is `requestUrl`; undefined when it may. */
function originRefusal(policy: OriginPolicy, origin: string, requestUrl: URL): string | undefined {
  if (policy.allowedOrigins.includes(origin)) return undefined;
  const url = parsedOrigin(origin);
  if (policy.localDev) {
    if (url && loopbackHosts.has(url.hostname)) return undefined;
    return `origin ${quoted(origin, 100)} may not use a server in local-dev mode: only loopback origins (127.0.0.1, localhost, [::1]) and DURABLE_AGENTS_CORS_ORIGINS may`;
  }
  if (policy.allowedOrigins.includes('*')) return undefined;
  if (url && url.host === requestUrl.host) return undefined;
  return `origin ${quoted(origin, 100)} is not this server's and not in DURABLE_AGENTS_CORS_ORIGINS`;
}

/**
 * Refuses requests from where they should not come, before any route runs (WebSocket upgrades
 * included: they pass through the app too):
 * - local-dev mode: the request's Host must be a loopback host (a DNS-rebound name is not);
 * - an `Origin` header, when present (browsers send it on cross-origin requests, every POST and
 *   every WebSocket), must be the server's own (same host and port as the request), a loopback
 *   origin in local-dev mode, or one of `allowedOrigins`.
 *
 * @throws ApiError `forbidden` naming the host or origin (cut to 100 characters).
 */
export function originGuard(policy: OriginPolicy): MiddlewareHandler {
  return async (c, next) => {
    const requestUrl = new URL(c.req.url);
    if (policy.localDev && !loopbackHosts.has(requestUrl.hostname)) {
      throw new ApiError('forbidden', `host ${quoted(requestUrl.hostname, 100)} may not use a server in local-dev mode: use 127.0.0.1, localhost or [::1]`);
    }
    const origin = c.req.header('origin');
    if (origin !== undefined) {
      const refusal = originRefusal(policy, origin, requestUrl);
      if (refusal) throw new ApiError('forbidden', refusal);
    }
    await next();
  };
}

/**
 * @throws ApiError `unsupported_media_type` unless the request says its body is JSON
 *   (`Content-Type: application/json`, parameters such as charset allowed).
 */
export function requireJson(c: Context): void {
  const type = c.req.header('content-type');
  const media = type?.split(';')[0]?.trim().toLowerCase();
  if (media === 'application/json') return;
  throw new ApiError('unsupported_media_type', `send the request as JSON with Content-Type: application/json (got ${type === undefined ? 'no Content-Type' : quoted(type, 100)})`);
}

/**
 * The request body as text, read only up to `maxBytes`: a declared length above it is refused
 * before reading, and a body that turns out longer is refused as soon as it passes the limit.
 *
 * @throws ApiError `too_large` naming the limit.
 */
export async function readBodyText(c: Context, maxBytes: number): Promise<string> {
  const tooLarge = () => new ApiError('too_large', `the request body is larger than ${maxBytes} bytes, the limit of this server`);
  const declared = Number(c.req.header('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  const body = c.req.raw.body;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Whether a request is a stream GET: SSE (`Accept: text/event-stream`) or a WebSocket upgrade. */
export function isStreamRequest(c: Context): boolean {
  if (c.req.method !== 'GET') return false;
  return (c.req.header('accept') ?? '').includes('text/event-stream') || c.req.header('upgrade')?.toLowerCase() === 'websocket';
}
