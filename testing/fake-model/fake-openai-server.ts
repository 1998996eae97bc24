import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseChatRequest, type FakeChatRequest } from './fake-openai-request';
import { validationError500, type FakeAnswer, type FakeQuirks, type FakeStep, type RecordedRequest } from './fake-openai-script';
import { completion, errorBody, streamChunks } from './fake-openai-wire';

type ConcreteStep = Exclude<FakeStep, { kind: 'dynamic' } | { kind: 'held' }>;

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
 * Steps and quirks reproduce particular servers: streams that end early or empty, llama-server's
 * error bodies, servers that refuse `content: null`, `json_schema` or streamed tools, or send no
 * usage or no tool-call `index` (see FakeStep and FakeQuirks).
 *
 * It fails loudly: when its script runs out (and no responder is set), or a request is one a
 * real provider would reject, it answers HTTP 500 / 400 with a message saying so AND records
 * the problem in `errors`, which tests assert is empty.
 *
 * @example
 * import OpenAI from 'openai';
 * const fake = await FakeOpenAIServer.start();
 * fake.script(callTools(toolCall('get_quote', { symbol: 'AAPL' })), say('AAPL is 123'));
 * const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test', maxRetries: 0 });
 */
export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  readonly errors: string[] = [];
  private readonly steps: FakeStep[] = [];
  private responder: ((request: RecordedRequest) => FakeStep) | undefined;
  private behaviour: FakeQuirks = {};

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /**
   * Starts a server on 127.0.0.1, on `options.port` (default: a free port; see `port` and `baseURL`).
   *
   * @throws Error naming the port when it is taken.
   */
  static async start(options: { readonly port?: number } = {}): Promise<FakeOpenAIServer> {
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
    const wanted = options.port ?? 0;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(err.code === 'EADDRINUSE' ? new Error(`fake OpenAI server: port ${wanted} on 127.0.0.1 is taken by another program; pick another port`, { cause: err }) : err),
      );
      server.listen(wanted, '127.0.0.1', resolve);
    });
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

  /** Behaves like a particular server until `reset()` (see FakeQuirks). */
  quirks(quirks: FakeQuirks): this {
    this.behaviour = { ...this.behaviour, ...quirks };
    return this;
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
    this.behaviour = {};
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
    const quirks = this.behaviour;
    const parsed = req.method === 'POST' && path === '/v1/chat/completions' ? parseChatRequest(raw, quirks) : undefined;
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
    // Refusals of a particular server come before the script: the request never reaches a model.
    const refusal = this.refusal(parsed.request, quirks);
    if (refusal) return this.send(res, refusal, recorded, parsed.request);
    let step = this.steps.shift() ?? this.responder?.(recorded);
    while (step?.kind === 'dynamic') step = step.respond(recorded);
    if (!step) {
      const last = parsed.request.messages.at(-1);
      return this.fail(res, 500, `fake OpenAI server: script exhausted at request #${recorded.seq} (model ${parsed.request.model}, last message role ${last?.role}); add a step to the test's script`);
    }
    if (step.kind === 'held') return this.sendWhenReleased(res, step, recorded, parsed.request);
    this.send(res, step, recorded, parsed.request);
  }

  /** A `held` step: its answer once the test releases it, unless the client went away first. */
  private async sendWhenReleased(res: ServerResponse, step: Extract<FakeStep, { kind: 'held' }>, recorded: RecordedRequest, request: FakeChatRequest): Promise<void> {
    const gone = new Promise<void>((resolve) => res.once('close', resolve));
    step.onHeld?.();
    await Promise.race([step.release, gone]);
    if (res.destroyed || res.writableEnded) return;
    this.send(res, step.answer, recorded, request);
  }

  /** Writes the chunks, waiting `delayMs` before each tool call's header after the first. */
  private writePaced(res: ServerResponse, chunks: readonly unknown[], delayMs: number): void {
    const isHeader = (c: unknown): boolean =>
      ((c as { choices?: { delta?: { tool_calls?: { id?: string }[] } }[] }).choices?.[0]?.delta?.tool_calls?.[0]?.id ?? undefined) !== undefined;
    let headers = 0;
    const write = async (): Promise<void> => {
      for (const chunk of chunks) {
        if (isHeader(chunk) && headers++ > 0) await new Promise((r) => setTimeout(r, delayMs));
        if (res.destroyed) return;
        res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      }
      res.end('data: [DONE]\n\n');
    };
    void write().catch(() => res.destroy());
  }

  private refusal(request: FakeChatRequest, quirks: FakeQuirks): ConcreteStep | undefined {
    if (quirks.rejectJsonSchema && request.response_format?.type === 'json_schema') return validationError500();
    if (quirks.rejectStreamingTools && request.stream && request.tools) return validationError500('Cannot use tools with stream');
    return undefined;
  }

  private send(res: ServerResponse, step: ConcreteStep, recorded: RecordedRequest, request: FakeChatRequest): void {
    if (step.kind === 'error') return sendJson(res, step.status, errorBody(step.message, step.type, step.code ?? null, step.extra), step.headers);
    if (step.kind === 'empty') {
      res.writeHead(200, { 'content-type': request.stream ? 'text/event-stream' : 'application/json' });
      res.end();
      return;
    }
    const quirks = this.behaviour;
    const answer: FakeAnswer = step.kind === 'cut' || step.kind === 'stall' || step.kind === 'paced' ? step.answer : step;
    if (!request.stream) return sendJson(res, 200, completion(answer, recorded.seq, request.model, !quirks.omitUsage));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const includeUsage = request.stream_options?.include_usage === true && !quirks.omitUsage;
    const all = streamChunks(answer, recorded.seq, request.model, { includeUsage, omitToolCallIndex: quirks.omitToolCallIndex === true, sequentialCalls: step.kind === 'paced' });
    if (step.kind === 'paced') return void this.writePaced(res, all, step.callDelayMs);
    const chunks = step.kind === 'cut' || step.kind === 'stall' ? all.slice(0, step.afterChunks) : all;
    for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    if (step.kind === 'stall') {
      // Silence until the client aborts (or the server closes); the request never finishes by itself.
      step.onStalled?.();
      return;
    }
    if (step.kind === 'cut') return void res.end();
    res.end('data: [DONE]\n\n');
  }
}
