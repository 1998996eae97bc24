/**
 * Where requests may come from and what they may carry, against the real HTTP server (no
 * Temporal server: every request here is answered before a Temporal call). Cross-site requests
 * must not act on runs: writes need Content-Type: application/json, Origin and (in local-dev
 * mode) Host are checked, `?access_token=` works only on stream GETs, and bodies are bounded
 * before they are read.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import WebSocket from 'ws';
import { AgentClient } from '../../client/agent-client';
import { startAgentServer, type AgentServer } from '../../server';
import type { AuthConfig } from '../../server/auth';

const tokens = { viewer: 'viewer-token-0123456789', operator: 'operator-token-0123456789' };
const withTokens: AuthConfig = {
  localDev: false,
  tokens: [
    { name: 'vera', role: 'viewer', token: tokens.viewer },
    { name: 'olivia', role: 'operator', token: tokens.operator },
  ],
};
const localDev: AuthConfig = { localDev: true, tokens: [] };
// A lazy connection that is never used: a request that reached Temporal would fail slowly.
const agents = new AgentClient(new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }), 'q');

const servers: AgentServer[] = [];
async function server(auth: AuthConfig, options: { corsOrigins?: string[]; maxBodyBytes?: number } = {}): Promise<AgentServer> {
  const started = await startAgentServer({ agents, auth, corsOrigins: options.corsOrigins ?? [], ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}) });
  servers.push(started);
  return started;
}

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/**
 * One request through node:http (which, unlike fetch, may set Host and send a body slowly).
 * `body` is written at once; `declaredLength` claims a Content-Length without sending it all.
 */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; declaredLength?: number; chunked?: Buffer[] } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...options.headers };
    if (options.declaredLength !== undefined) headers['content-length'] = options.declaredLength;
    const req = httpRequest(url, { method: options.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text && res.headers['content-type']?.includes('json') ? JSON.parse(text) : text });
      });
    });
    // An answer before the whole body is sent may close the connection under the writer.
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error(`no answer within 5 s to ${options.method ?? 'GET'} ${url}`)));
    if (options.chunked) {
      for (const chunk of options.chunked) req.write(chunk);
      req.end();
    } else if (options.declaredLength !== undefined) {
      req.write(options.body ?? '');
    } else req.end(options.body);
  });
}

const bearer = (role: keyof typeof tokens) => ({ authorization: `Bearer ${tokens[role]}` });
const json = { 'content-type': 'application/json' };
const startBody = JSON.stringify({ agent: 'scripted', messages: [{ role: 'user', content: 'hi' }] });

function expectError(reply: Reply, status: number, type: string, message?: RegExp): void {
  expect({ status: reply.status, type: reply.body?.error?.type }).toEqual({ status, type });
  if (message) expect(reply.body.error.message).toMatch(message);
}

describe('local-dev mode (what `npm run demo` serves)', () => {
  it('a cross-site text/plain POST does not start a run: the origin is refused, and the content type too', async () => {
    const api = await server(localDev);
    expectError(await raw(`${api.url}/api/runs`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'text/plain' }, body: startBody }), 403, 'forbidden', /origin "https:\/\/evil\.example"/);
    // Even without an Origin header, a body not declared as JSON is refused before anything runs.
    const plain = await raw(`${api.url}/api/runs`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: startBody });
    expectError(plain, 415, 'unsupported_media_type', /Content-Type: application\/json \(got "text\/plain"\)/);
    expectError(await raw(`${api.url}/api/runs`, { method: 'POST', body: startBody }), 415, 'unsupported_media_type', /no Content-Type/);
    expectError(await raw(`${api.url}/api/runs`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'agent=scripted' }), 415, 'unsupported_media_type');
  });

  it('answers loopback hosts only: a DNS-rebound host name is refused', async () => {
    const api = await server(localDev);
    const port = new URL(api.url).port;
    expectError(await raw(`${api.url}/api/whoami`, { headers: { host: `rebound.evil.example:${port}` } }), 403, 'forbidden', /host "rebound\.evil\.example"/);
    expectError(await raw(`${api.url}/`, { headers: { host: `10.0.0.7:${port}` } }), 403, 'forbidden');
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'localhost']) {
      expect({ host, status: (await raw(`${api.url}/api/whoami`, { headers: { host } })).status }).toEqual({ host, status: 200 });
    }
  });

  it('lets loopback origins in on any port, and refuses other origins on reads too', async () => {
    const api = await server(localDev);
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:9999', 'http://[::1]:3000', api.url]) {
      expect({ origin, status: (await raw(`${api.url}/api/whoami`, { headers: { origin } })).status }).toEqual({ origin, status: 200 });
    }
    for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example']) {
      expectError(await raw(`${api.url}/api/whoami`, { headers: { origin } }), 403, 'forbidden');
    }
  });

  it('refuses a cross-site WebSocket upgrade (cross-site WebSocket hijacking)', async () => {
    const api = await server(localDev);
    const ws = new WebSocket(`${api.url.replace(/^http/, 'ws')}/api/runs/some-run/ws`, { origin: 'https://evil.example' });
    ws.on('error', () => undefined);
    const status = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    ws.terminate();
    expect(status).toBe(403);
  });
});

describe('with tokens', () => {
  it('takes ?access_token= only on stream GETs: a text/plain POST with it cannot change a budget', async () => {
    const api = await server(withTokens);
    const budget = `${api.url}/api/runs/some-run/budget?access_token=${tokens.operator}`;
    expectError(await raw(budget, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"maxToolCalls":1}' }), 401, 'unauthorized', /access_token is taken only by stream GETs/);
    expectError(await raw(budget, { method: 'POST', headers: json, body: '{"maxToolCalls":1}' }), 401, 'unauthorized', /access_token/);
    // Nor on a plain GET, nor on a route that streams nothing.
    expectError(await raw(`${api.url}/api/whoami?access_token=${tokens.viewer}`), 401, 'unauthorized', /access_token/);
    expectError(await raw(`${api.url}/api/whoami?access_token=${tokens.viewer}`, { headers: { accept: 'text/event-stream' } }), 401, 'unauthorized', /access_token/);
    expectError(await raw(`${api.url}/api/runs/some-run/events?access_token=${tokens.viewer}`), 401, 'unauthorized', /access_token/);
    // With the header, a text/plain write is still refused.
    expectError(await raw(`${api.url}/api/runs/some-run/budget`, { method: 'POST', headers: { ...bearer('operator'), 'content-type': 'text/plain' }, body: '{}' }), 415, 'unsupported_media_type');
  });

  it('lets in requests without an Origin, from its own origin and from the CORS origins; refuses others', async () => {
    const api = await server(withTokens, { corsOrigins: ['http://127.0.0.1:8233'] });
    expect((await raw(`${api.url}/api/whoami`, { headers: bearer('viewer') })).status).toBe(200);
    expect((await raw(`${api.url}/api/whoami`, { headers: { ...bearer('viewer'), origin: api.url } })).status).toBe(200);
    expect((await raw(`${api.url}/api/whoami`, { headers: { ...bearer('viewer'), origin: 'http://127.0.0.1:8233' } })).status).toBe(200);
    const other = await raw(`${api.url}/api/runs/some-run/pause`, { method: 'POST', headers: { ...bearer('operator'), ...json, origin: 'https://evil.example' }, body: '{}' });
    expectError(other, 403, 'forbidden', /origin "https:\/\/evil\.example" is not this server's and not in DURABLE_AGENTS_CORS_ORIGINS/);
    // Another port of the same host is another origin.
    const port = Number(new URL(api.url).port);
    expectError(await raw(`${api.url}/api/whoami`, { headers: { ...bearer('viewer'), origin: `http://127.0.0.1:${port + 1}` } }), 403, 'forbidden');
    // A token server behind a proxy is reached under any host name.
    expect((await raw(`${api.url}/api/whoami`, { headers: { ...bearer('viewer'), host: 'agents.example.com' } })).status).toBe(200);
  });

  it('refuses a cross-site WebSocket upgrade even with a valid token', async () => {
    const api = await server(withTokens);
    const ws = new WebSocket(`${api.url.replace(/^http/, 'ws')}/api/runs/some-run/ws?access_token=${tokens.viewer}`, { origin: 'https://evil.example' });
    ws.on('error', () => undefined);
    const status = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    ws.terminate();
    expect(status).toBe(403);
  });
});

describe('request bodies', () => {
  const pause = (api: AgentServer) => `${api.url}/api/runs/some-run/pause`;

  it('a body declared larger than 1 MiB is refused (413) before it is read', async () => {
    const api = await server(withTokens);
    // 64 MB announced, 1 KB sent: the answer cannot wait for the rest.
    const reply = await raw(pause(api), { method: 'POST', headers: { ...bearer('operator'), ...json }, declaredLength: 64 * 1024 * 1024, body: 'x'.repeat(1024) });
    expectError(reply, 413, 'too_large', /larger than 1048576 bytes/);
  });

  it('a chunked body is refused as soon as it passes the limit', async () => {
    const api = await server(withTokens);
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const reply = await raw(pause(api), { method: 'POST', headers: { ...bearer('operator'), ...json }, chunked: Array.from({ length: 8 }, () => chunk) });
    expectError(reply, 413, 'too_large');
  });

  it('the limit is configurable (option and DURABLE_AGENTS_MAX_BODY_BYTES)', async () => {
    const small = await server(withTokens, { maxBodyBytes: 100 });
    const body = JSON.stringify({ reason: 'r'.repeat(200) });
    expectError(await raw(pause(small), { method: 'POST', headers: { ...bearer('operator'), ...json }, body }), 413, 'too_large', /larger than 100 bytes/);
    const previous = process.env.DURABLE_AGENTS_MAX_BODY_BYTES;
    try {
      process.env.DURABLE_AGENTS_MAX_BODY_BYTES = '150';
      const fromEnv = await server(withTokens);
      expectError(await raw(pause(fromEnv), { method: 'POST', headers: { ...bearer('operator'), ...json }, body }), 413, 'too_large', /larger than 150 bytes/);
      process.env.DURABLE_AGENTS_MAX_BODY_BYTES = 'lots';
      await expect(startAgentServer({ agents, auth: withTokens })).rejects.toThrow('DURABLE_AGENTS_MAX_BODY_BYTES: expected a positive number of bytes, got "lots"');
    } finally {
      if (previous === undefined) delete process.env.DURABLE_AGENTS_MAX_BODY_BYTES;
      else process.env.DURABLE_AGENTS_MAX_BODY_BYTES = previous;
    }
  });
});

describe('values nested too deep', () => {
  const nestedText = (levels: number): string => `${'['.repeat(levels)}"bottom"${']'.repeat(levels)}`;

  it('a run or session body nested deeper than runs take is refused with 400 naming the field, even 100,000 levels deep', async () => {
    const api = await server(withTokens);
    const headers = { ...bearer('operator'), ...json };
    const run = (levels: number) => `{"agent":"scripted","messages":[{"role":"user","content":"hi"}],"sessionState":{"deep":${nestedText(levels)}}}`;
    const session = (levels: number) => `{"sessionId":"s1","agent":"scripted","sessionState":{"deep":${nestedText(levels)}}}`;
    // Deeper than a run takes: refused before anything is sent to Temporal.
    expectError(await raw(`${api.url}/api/runs`, { method: 'POST', headers, body: run(65) }), 400, 'invalid_input', /^invalid run input: sessionState: nested deeper than 64 levels$/);
    expectError(await raw(`${api.url}/api/sessions`, { method: 'POST', headers, body: session(65) }), 400, 'invalid_input', /^invalid session input: sessionState: nested deeper than 64 levels$/);
    // Deep enough to overflow a recursive schema: refused before any schema (it was a 500).
    expectError(await raw(`${api.url}/api/runs`, { method: 'POST', headers, body: run(100_000) }), 400, 'invalid_input', /^body\.sessionState: nested deeper than 1000 levels$/);
    expectError(await raw(`${api.url}/api/sessions`, { method: 'POST', headers, body: session(100_000) }), 400, 'invalid_input', /^body\.sessionState: nested deeper than 1000 levels$/);
  });

  it('AgentClient refuses such an input before it reaches Temporal, naming the field', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    await expect(agents.start({ agent: 'scripted', messages: [{ role: 'user', content: 'hi' }], sessionState: { deep } as never })).rejects.toMatchObject({
      type: 'invalid_input',
      message: 'invalid run input: sessionState: nested deeper than 64 levels',
    });
    await expect(agents.openSession('s1', { agent: 'scripted', sessionState: { deep } as never })).rejects.toMatchObject({
      type: 'invalid_input',
      message: 'invalid session input: sessionState: nested deeper than 64 levels',
    });
  });
});
