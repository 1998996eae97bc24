import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { AgentClient } from '../../client/agent-client';
import { createAgentApp, LiveHub } from '../../server';
import { EncryptionCodec } from '../../config/encryption';

const tokens = { viewer: 'v'.repeat(24), operator: 'o'.repeat(24) };
const auth = { tokens: [{ name: 'vera', role: 'viewer' as const, token: tokens.viewer }, { name: 'otto', role: 'operator' as const, token: tokens.operator }], localDev: false };
const codec = new EncryptionCodec([{ id: 'k1', key: randomBytes(32) }]);
// A lazy connection: nothing here talks to a Temporal server.
const connection = Connection.lazy({ address: '127.0.0.1:1' });

function app(withCodec: boolean) {
  const client = new Client({ connection, ...(withCodec ? { dataConverter: { payloadCodecs: [codec] } } : {}) });
  const agents = new AgentClient(client, 'q');
  return createAgentApp({ agents, auth, live: new LiveHub(agents) }, { corsOrigins: ['http://127.0.0.1:8233'] });
}

function asJson(payload: { metadata?: Record<string, Uint8Array | null> | null; data?: Uint8Array | null }) {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v ?? []).toString('base64')])),
    data: Buffer.from(payload.data ?? []).toString('base64'),
  };
}

async function post(path: string, token: string | undefined, body: unknown, withCodec = true): Promise<Response> {
  return app(withCodec).request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
}

describe('codec endpoint for the Temporal Web UI', () => {
  it('decodes encrypted payloads to the plaintext the workflow saw', async () => {
    const [encrypted] = await codec.encode([defaultPayloadConverter.toPayload({ note: 'secret' })]);
    const res = await post('/decode', tokens.viewer, { payloads: [asJson(encrypted!)] });
    expect(res.status).toBe(200);
    const { payloads } = (await res.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    expect(Buffer.from(payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(payloads[0]!.data, 'base64').toString())).toEqual({ note: 'secret' });
  });

  it('encodes for an operator; a viewer may not', async () => {
    const plain = asJson(defaultPayloadConverter.toPayload('hello'));
    const forbidden = await post('/encode', tokens.viewer, { payloads: [plain] });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({ error: { type: 'forbidden', message: 'vera has role viewer; this needs operator' } });
    const res = await post('/encode', tokens.operator, { payloads: [plain] });
    const { payloads } = (await res.json()) as { payloads: { metadata: Record<string, string> }[] };
    expect(Buffer.from(payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('binary/encrypted');
  });

  it('refuses without a token, says when no codec is configured, and names bad bodies', async () => {
    expect((await post('/decode', undefined, { payloads: [] })).status).toBe(401);
    const none = await post('/decode', tokens.viewer, { payloads: [] }, false);
    expect(none.status).toBe(501);
    expect(((await none.json()) as { error: { message: string } }).error.message).toMatch(/DURABLE_AGENTS_ENCRYPTION_KEYS/);
    const bad = await post('/decode', tokens.viewer, { payloads: 'x' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/^body\.payloads: /);
  });

  it('answers 400 naming the payload for garbage, never the key ids of the server', async () => {
    const [encrypted] = await codec.encode([defaultPayloadConverter.toPayload('x')]);
    const good = asJson(encrypted!);
    const unknownKey = { ...good, metadata: { ...good.metadata, 'encryption-key-id': Buffer.from('nope').toString('base64') } };
    const truncated = { ...good, data: Buffer.from('short').toString('base64') };
    const altered = { ...good, data: Buffer.from(randomBytes(64)).toString('base64') };
    for (const [i, garbage] of [unknownKey, truncated, altered].entries()) {
      const res = await post('/decode', tokens.viewer, { payloads: [good, garbage] });
      const body = (await res.json()) as { error: { type: string; message: string } };
      expect({ case: i, status: res.status, type: body.error.type }).toEqual({ case: i, status: 400, type: 'invalid_input' });
      expect(body.error.message).toMatch(/^body\.payloads\.1: cannot be decoded by this server/);
      expect(body.error.message).not.toContain('k1');
    }
  });

  it('answers the Web UI origin preflight with credentials allowed', async () => {
    const res = await app(true).request('/decode', {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:8233', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-namespace' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8233');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-namespace');
  });
});
