/**
 * The watchlist example's worker process (`npm run worker`): connects with the TEMPORAL_*
 * variables, serves the watchlist agents until SIGINT/SIGTERM. LLM agents use OPENAI_*.
 */
import { createAgentWorker, openAIFromEnv, temporalConfigFromEnv } from 'durable-agents/worker';
import { watchlistAgents } from './agent';
import { watchlistImplementations } from './tools';

async function main(): Promise<void> {
  const config = temporalConfigFromEnv();
  const openai = openAIFromEnv();
  const worker = await createAgentWorker({
    config,
    workflowsPath: require.resolve('./workflows'),
    agents: watchlistAgents,
    tools: watchlistImplementations(),
    openai: openai ?? null,
  });
  console.log(`model endpoint: ${openai ? openai.baseURL : 'none (set OPENAI_API_KEY / OPENAI_BASE_URL; LLM agents fail with model_config)'}`);
  console.log(`worker polling task queue "${config.taskQueue}" on ${config.address} (namespace ${config.namespace})`);
  await worker.run();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
