/**
 * The watchlist example's worker process (`npm run worker`): connects with the TEMPORAL_*
 * variables, serves the watchlist agents until SIGINT/SIGTERM. LLM agents use OPENAI_*;
 * metrics and tracing follow DURABLE_AGENTS_PROMETHEUS and DURABLE_AGENTS_TRACING.
 */
import type { Worker } from '@temporalio/worker';
import type OpenAI from 'openai';
import { temporalConfigFromEnv, type TemporalConfig } from 'durable-agents/client';
import { createAgentWorker, deploymentFromEnv, installTelemetry, openAIFromEnv, type DeltaSink } from 'durable-agents/worker';
import { watchlistAgents } from './agent';
import { watchlistImplementations } from './tools';

/**
 * A worker for the watchlist agents on `config`'s task queue; LLM agents use `openai` if given,
 * and stream their token deltas to `deltas` (default: DURABLE_AGENTS_DELTAS_URL, if set).
 */
export function createWatchlistWorker(config: TemporalConfig, openai: OpenAI | undefined, deltas?: DeltaSink): Promise<Worker> {
  return createAgentWorker({
    config,
    workflowsPath: require.resolve('./workflows'),
    agents: watchlistAgents,
    tools: watchlistImplementations(),
    openai: openai ?? null,
    ...(deltas ? { model: { deltas } } : {}),
  });
}

async function main(): Promise<void> {
  // First: metrics in Prometheus format when DURABLE_AGENTS_PROMETHEUS is set (tracing: DURABLE_AGENTS_TRACING).
  const { prometheus } = installTelemetry();
  if (prometheus) console.log(`metrics on http://${prometheus}/metrics`);
  const config = temporalConfigFromEnv();
  const openai = openAIFromEnv();
  const worker = await createWatchlistWorker(config, openai);
  console.log(`model endpoint: ${openai ? openai.baseURL : 'none (set OPENAI_API_KEY / OPENAI_BASE_URL; LLM agents fail with model_config)'}`);
  console.log(`worker polling task queue "${config.taskQueue}" on ${config.address} (namespace ${config.namespace})`);
  const deployment = deploymentFromEnv();
  console.log(
    deployment
      ? `worker version ${deployment.name}.${deployment.buildId} (${deployment.defaultBehavior.toLowerCase()} runs); it gets new runs once current: temporal worker deployment set-current-version --deployment-name ${deployment.name} --build-id ${deployment.buildId}`
      : 'unversioned worker (DURABLE_AGENTS_DEPLOYMENT_NAME and DURABLE_AGENTS_BUILD_ID unset)',
  );
  await worker.run();
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
