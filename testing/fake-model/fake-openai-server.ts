import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseChatRequest } from './fake-openai-request';
import type { FakeStep, RecordedRequest } from './fake-openai-script';
import { completion, errorBody, streamChunks } from './fake-openai-wire';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * A scripted OpenAI-compatible server on 127.0.0.1 (random port) for tests and benchmarks:
 * `POST /v1/chat/completions`, streaming (SSE, tool-call argument deltas split across chunks,
 * a final usage chunk) or not, and provider errors on demand. It records every request.
 *
 * It fails loudly: when its script runs out (and no responder is set), or a request is one a
 * real provider would reject, it answers HTTP 500 / 400 with a message saying so AND records
 * the problem in `errors`, which tests assert is empty.
 *
 * @example
 * const fake = await FakeOpenAIServer.start();
 * fake.script(callTools(toolCall('get_quote', { symbol: 'AAPL' })), say('AAPL is 123'));
 * const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test', maxRetries: 0 });
 */
export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  readonly errors: string[] = [];
  private readonly steps: FakeStep[] = [];
  private responder: ((request: RecordedRequest) => FakeStep) | undefined;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Starts a server on a random loopback port. */
  static async start(): Promise<FakeOpenAIServer> {
    const handlers: { fake?: FakeOpenAIServer } = {};
    const server = createServer((req, res) => {
      const fake = handlers.fake;
      if (!fake) return sendJson(res, 503, errorBody('fake OpenAI server is starting', 'server_error'));
      fake.handle(req, res).catch((err: unknown) => {
        fake.errors.push(`fake OpenAI server crashed: ${String(err)}`);
        if (!res.headersSent) sendJson(res, 500, errorBody(`fake OpenAI server crashed: ${String(err)}`, 'server_error'));
        else res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    handlers.fake = new FakeOpenAIServer(server, (server.address() as AddressInfo).port);
    return handlers.fake;
  }

  /** The base URL for the openai client (`…/v1`). */
  get baseURL(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Appends steps to the script. */
  script(...steps: FakeStep[]): this {
    this.steps.push(...steps);
    return this;
  }

  /** Steps not yet used. */
  get remaining(): number {
    return this.steps.length;
  }

  /** Answers requests the script does not cover (benchmarks); `undefined` restores loud failure. */
  respondWith(responder: ((request: RecordedRequest) => FakeStep) | undefined): void {
    this.responder = responder;
  }

  /** Chat requests received so far (bodies that parsed). */
  get chatRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.body !== undefined);
  }

  /** Forgets script, responder, requests and errors. */
  reset(): void {
    this.steps.length = 0;
    this.requests.length = 0;
    this.errors.length = 0;
    this.responder = undefined;
  }

  /** Stops the server, dropping open connections. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private fail(res: ServerResponse, status: number, problem: string): void {
    this.errors.push(problem);
    sendJson(res, status, errorBody(problem, status >= 500 ? 'fake_server_error' : 'invalid_request_error'));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '').split('?')[0] ?? '';
    const parsed = req.method === 'POST' && path === '/v1/chat/completions' ? parseChatRequest(raw) : undefined;
    const recorded: RecordedRequest = {
      seq: this.requests.length + 1,
      method: req.method ?? '',
      path,
      authorization: req.headers.authorization,
      body: parsed?.ok ? parsed.request : undefined,
    };
    this.requests.push(recorded);
    if (!parsed) return this.fail(res, 404, `fake OpenAI server: no route ${req.method} ${path} (request #${recorded.seq})`);
    if (!parsed.ok) return this.fail(res, 400, `fake OpenAI server: request #${recorded.seq} would be rejected by a provider: ${parsed.problem}`);
    let step = this.steps.shift() ?? this.responder?.(recorded);
    while (step?.kind === 'dynamic') step = step.respond(recorded);
    if (!step) {
      const last = parsed.request.messages.at(-1);
      return this.fail(res, 500, `fake OpenAI server: script exhausted at request #${recorded.seq} (model ${parsed.request.model}, last message role ${last?.role}); add a step to the test's script`);
    }
    if (step.kind === 'error') {
      sendJson(res, step.status, errorBody(step.message, step.type, step.code ?? null), step.headers);
      return;
    }
    const model = parsed.request.model;
    if (!parsed.request.stream) return sendJson(res, 200, completion(step, recorded.seq, model));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const chunk of streamChunks(step, recorded.seq, model, parsed.request.stream_options?.include_usage === true)) {
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }
}
