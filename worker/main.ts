/**
 * A worker process: `npm run worker`. Connects with the TEMPORAL_* environment variables and
 * serves agent runs until SIGINT/SIGTERM, finishing in-flight tasks before it exits.
 */
import { allToolImplementations } from '../agents';
import { createModelActivities, openAIFromEnv } from '../activities/model';
import { temporalConfigFromEnv } from './config';
import { createAgentWorker } from './create-worker';

async function main(): Promise<void> {
  const config = temporalConfigFromEnv();
  const openai = openAIFromEnv();
  const worker = await createAgentWorker({ config, tools: allToolImplementations(), runtime: createModelActivities({ openai }) });
  console.log(`model endpoint: ${openai ? openai.baseURL : 'none (set OPENAI_API_KEY / OPENAI_BASE_URL; LLM agents fail with model_config)'}`);
  console.log(`worker polling task queue "${config.taskQueue}" on ${config.address} (namespace ${config.namespace})`);
  await worker.run();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
