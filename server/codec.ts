import type { Payload, PayloadCodec } from '@temporalio/common';
import { z } from 'zod';
import type { ServerContext } from './context';
import { ApiError } from './errors';
import { route, type AnyRoute } from './routes';

/** A payload in proto3 JSON, as the Temporal Web UI and CLI send it: bytes in base64. */
const jsonPayloadSchema = z.object({
  metadata: z.record(z.string(), z.string()).optional(),
  data: z.string().optional(),
});
const payloadsBodySchema = z.object({ payloads: z.array(jsonPayloadSchema).max(10_000) });
type JsonPayload = z.infer<typeof jsonPayloadSchema>;

function fromJson(payload: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
    data: Buffer.from(payload.data ?? '', 'base64'),
  };
}

function toJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? new Uint8Array()).toString('base64')])),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}

function codecsOf(ctx: ServerContext): readonly PayloadCodec[] {
  const codecs = ctx.agents.client.options.loadedDataConverter.payloadCodecs;
  if (codecs.length === 0) throw new ApiError('not_configured', 'this server has no payload codec: set DURABLE_AGENTS_ENCRYPTION_KEYS (the keys of the workers) to serve /encode and /decode');
  return codecs;
}

/**
 * The codec endpoint of the Temporal Web UI and CLI (`--codec-endpoint`): `POST /encode` and
 * `POST /decode` with `{ payloads: [...] }` in proto3 JSON, through this server's codecs (the
 * payload encryption), so people with a token see decrypted payloads in the Web UI. Decoding
 * needs `viewer`, encoding (the Web UI sending a signal) `operator`; the Web UI's origin must be
 * in DURABLE_AGENTS_CORS_ORIGINS.
 */
export function codecRoutes(ctx: ServerContext): AnyRoute[] {
  const body = payloadsBodySchema;
  return [
    route({
      method: 'post',
      path: '/decode',
      access: 'viewer',
      summary: 'Decode (decrypt) payloads for the Temporal Web UI / CLI codec endpoint',
      tags: ['codec'],
      body,
      response: payloadsBodySchema,
      handle: async ({ body: { payloads } }) => {
        const codecs = [...codecsOf(ctx)].reverse();
        // One at a time, so a payload the codecs refuse is named by its index.
        const decoded = await Promise.all(
          payloads.map(async (payload, i) => {
            let out = [fromJson(payload)];
            try {
              for (const codec of codecs) out = await codec.decode(out);
            } catch {
              // The codec's own message lists the server's key ids: not for callers.
              throw new ApiError('invalid_input', `body.payloads.${i}: cannot be decoded by this server (encrypted with a key it does not have, truncated or altered)`);
            }
            return out[0] as Payload;
          }),
        );
        return { payloads: decoded.map(toJson) };
      },
    }),
    route({
      method: 'post',
      path: '/encode',
      access: 'operator',
      summary: 'Encode (encrypt) payloads for the Temporal Web UI / CLI codec endpoint',
      tags: ['codec'],
      body,
      response: payloadsBodySchema,
      handle: async ({ body: { payloads } }) => {
        let encoded = payloads.map(fromJson);
        for (const codec of codecsOf(ctx)) encoded = await codec.encode(encoded);
        return { payloads: encoded.map(toJson) };
      },
    }),
  ];
}
