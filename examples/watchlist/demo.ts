/**
 * The main job: `npm run demo [-- --port N] [--ui-port N] [--temporal-http-port N]
 * [--temporal-metrics-port N] [--http-port N] [--serve] ["message"]`. Starts a local Temporal
 * dev server (127.0.0.1, `--port` or 7233; its Web UI, HTTP API and metrics on the ports given,
 * see devServerPorts) — or, when TEMPORAL_ADDRESS is set, uses the server there — runs the
 * watchlist worker in this process, starts the HTTP API and dashboard on 127.0.0.1
 * (`--http-port`, else DURABLE_AGENTS_HTTP_PORT, default any free port), starts a watchlist agent
 * run, prints its events live and its result. A port already taken stops the demo with an error
 * naming it. The API uses the tokens of DURABLE_AGENTS_TOKENS(_FILE) when set, else local-dev
 * mode (no token needed, loopback only); `--serve` keeps them up after the run until Ctrl-C.
 * Needs no API key: the watchlist agent plans with deterministic rules. With OPENAI_API_KEY or
 * OPENAI_BASE_URL set, the demo runs `watchlist-llm` instead, planned by that model endpoint
 * (OPENAI_MODEL picks the model; default the agent's).
 */
import { AgentClient, clientOptionsFromEnv, formatEvent, temporalConfigFromEnv } from 'durable-agents/client';
import { devServerPorts, startDevServer, withoutPortFlag, type DevServer } from 'durable-agents/testing';
import { authFromEnv, authModeLine, startAgentServer, type AgentServer } from 'durable-agents/server';
import { openAIFromEnv, type DeltaSink } from 'durable-agents/worker';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createWatchlistWorker } from './worker';

async function localServer(argv: readonly string[]): Promise<DevServer | undefined> {
  // An explicit address means "use that server"; the demo starts its own only otherwise.
  if (process.env.TEMPORAL_ADDRESS && !argv.includes('--port')) return undefined;
  return startDevServer(devServerPorts(argv, {}));
}

/** `--http-port N`, else DURABLE_AGENTS_HTTP_PORT (default 0: any free port), and the arguments without the flag. */
function httpPortFlag(argv: readonly string[], env: NodeJS.ProcessEnv): { port: number; rest: string[] } {
  const flag = argv.indexOf('--http-port');
  const fromEnv = env.DURABLE_AGENTS_HTTP_PORT?.trim();
  const [raw, source] = flag >= 0 ? [argv[flag + 1], '--http-port'] : [fromEnv || '0', 'DURABLE_AGENTS_HTTP_PORT'];
  const port = Number(raw);
  if (!raw || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${source}: expected a port number (0-65535), got ${JSON.stringify(raw ?? '')}`);
  return { port, rest: flag < 0 ? [...argv] : [...argv.slice(0, flag), ...argv.slice(flag + 2)] };
}

/** The HTTP API and dashboard: with the configured tokens, else in local-dev mode. */
async function startApi(agents: AgentClient, port: number): Promise<AgentServer> {
  const configured = authFromEnv();
  const auth = configured.tokens.length > 0 ? configured : { tokens: [], localDev: true };
  const api = await startAgentServer({ agents, auth, host: '127.0.0.1', port, workflowsPath: require.resolve('./workflows') }).catch((err: unknown) => {
    if ((err as { code?: unknown }).code !== 'EADDRINUSE') throw err;
    throw new Error(`port ${port} on 127.0.0.1, wanted for the HTTP API and dashboard (--http-port, DURABLE_AGENTS_HTTP_PORT), is taken by another program; pick another port or stop that program`);
  });
  console.log(`HTTP API and dashboard at ${api.url}/ (OpenAPI: ${api.url}/openapi.json)`);
  if (auth.localDev) console.log('no API tokens configured (DURABLE_AGENTS_TOKENS / DURABLE_AGENTS_TOKENS_FILE), so the demo runs the API in local-dev mode');
  console.log(authModeLine(auth));
  return api;
}

async function main(): Promise<void> {
  // Worker lifecycle logs would drown the run's own events; keep warnings and errors.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const { port: httpPort, rest: args } = httpPortFlag(process.argv.slice(2), process.env);
  // --serve: after the demo run, keep the API, dashboard and worker up until Ctrl-C.
  const keepServing = args.includes('--serve');
  const argv = args.filter((a) => a !== '--serve');
  const message = withoutPortFlag(argv).join(' ') || 'Add AAPL, MSFT and NVDA to my watchlist';
  const server = await localServer(argv);
  const env = temporalConfigFromEnv();
  const config = server ? { ...env, address: server.address, namespace: server.namespace } : env;
  console.log(server ? `Temporal dev server started by the demo at ${server.address}` : `using the Temporal server at ${config.address} (TEMPORAL_ADDRESS)`);
  const openai = openAIFromEnv();
  let deltaTarget: DeltaSink | undefined;
  const worker = await createWatchlistWorker(config, openai, { publish: (delta) => deltaTarget?.publish(delta) });
  try {
    await worker.runUntil(async () => {
      const agents = await AgentClient.connect(config, clientOptionsFromEnv());
      const api = await startApi(agents, httpPort);
      // Worker and server share this process: token deltas go straight to the server's live hub.
      deltaTarget = api.live;
      try {
        await demoRun(agents, server, openai, message);
        if (keepServing) {
          console.log(`\nstill serving the API and dashboard at ${api.url}/ and the worker; Ctrl-C to stop`);
          await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
        }
      } finally {
        await api.close();
      }
    });
  } finally {
    await server?.stop();
  }
}

/** Starts the watchlist run, prints its events (approving as the demo user) and its result. */
async function demoRun(agents: AgentClient, server: DevServer | undefined, openai: ReturnType<typeof openAIFromEnv>, message: string): Promise<void> {
  const sessionState = { watchlist: ['TSLA'] };
  const agent = openai ? 'watchlist-llm' : 'watchlist';
  const plannerOptions = openai && process.env.OPENAI_MODEL ? { plannerOptions: { model: process.env.OPENAI_MODEL } } : {};
  const { workflowId } = await agents.start({ agent, messages: [{ role: 'user', content: message }], sessionState, ...plannerOptions });
  console.log(`agent ${agent}: ${openai ? 'planned by the model at OPENAI_BASE_URL / OpenAI' : 'planned by rules (set OPENAI_API_KEY or OPENAI_BASE_URL to use a model)'}`);
  console.log(`started run ${workflowId}: "${message}" (session watchlist: ${sessionState.watchlist.join(', ')})`);
  if (server?.uiUrl) console.log(`watch it in the Web UI: ${server.uiUrl}/namespaces/${server.namespace}/workflows/${workflowId}`);
  for await (const event of agents.follow(workflowId)) {
    console.log(formatEvent(event));
    // add_to_watchlist requires confirmation (seed 003); the demo plays the human and approves.
    if (event.type === 'approval_requested') {
      console.log(`        -> approving ${event.name}(${event.toolCallId}) as the demo user`);
      await agents.decide(workflowId, { decision: 'approve', toolCallId: event.toolCallId, by: 'demo user' });
    }
  }
  const result = await agents.result(workflowId);
  console.log(`\nresult: ${result.status}: ${result.final?.text ?? ''}`);
  console.log(`session state: ${JSON.stringify(result.sessionState)}`);
  console.log(`cost: ${result.iterations} iterations, ${result.cost.toolCalls.used} tool calls, ${result.cost.elapsedMs} ms`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
