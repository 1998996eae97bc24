/**
 * The MCP example's worker: serves the agents of agent.ts and reaches the reference MCP server
 * over stdio (the worker starts it, once, and restarts it when it dies). Set MCP_EVERYTHING_URL
 * (e.g. http://127.0.0.1:3001/mcp, the server started with `streamableHttp`) to use streamable
 * HTTP instead. TEMPORAL_* and OPENAI_* come from the environment.
 */
import type { Worker } from '@temporalio/worker';
import { temporalConfigFromEnv, type TemporalConfig } from 'durable-agents/client';
import { createAgentWorker, implementTool, openAIFromEnv, type McpServerConfig } from 'durable-agents/worker';
import { mcpAssistantAgents, rememberTool } from './agent';

const remember = implementTool(rememberTool, ({ fact }, ctx) => {
  const facts = ctx.session.get('facts');
  ctx.session.set('facts', [...(Array.isArray(facts) ? facts : []), fact]);
  return { remembered: fact };
});

/** Where the reference server is: over HTTP when `url` is given, else a child process over stdio. */
export function everythingServer(url?: string): McpServerConfig {
  if (url) return { transport: 'http', url };
  return { transport: 'stdio', command: process.execPath, args: [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'], stderr: 'ignore' };
}

/** A worker for the example's agents on `config`'s task queue. */
export function createMcpAssistantWorker(config: TemporalConfig, options: { url?: string; connection?: Parameters<typeof createAgentWorker>[0]['connection'] } = {}): Promise<Worker> {
  return createAgentWorker({
    config,
    ...(options.connection ? { connection: options.connection } : {}),
    workflowsPath: require.resolve('./workflows'),
    agents: mcpAssistantAgents,
    tools: [remember],
    openai: openAIFromEnv() ?? null,
    mcpServers: { everything: everythingServer(options.url) },
  });
}

async function main(): Promise<void> {
  const config = temporalConfigFromEnv();
  const worker = await createMcpAssistantWorker(config, { url: process.env.MCP_EVERYTHING_URL });
  console.log(`worker polling task queue "${config.taskQueue}" on ${config.address}; MCP server "everything" over ${process.env.MCP_EVERYTHING_URL ? 'HTTP' : 'stdio'}`);
  await worker.run();
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
