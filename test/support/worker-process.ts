/**
 * A worker in its own process, so tests can kill it with SIGKILL mid-run. Reads the
 * TEMPORAL_* variables, DURABLE_AGENTS_TEST_BUNDLE, SIDE_EFFECT_FILE and optionally
 * WORKER_OPTIONS (JSON worker options), DURABLE_AGENTS_PROMETHEUS, DURABLE_AGENTS_TENANTS_FILE (the
 * deployment's tenants file, as a user's worker reads it) and DURABLE_AGENTS_TEST_PRICES (a JSON
 * price table for the model activity); prints "ready".
 * Like worker/create-worker.ts it also registers the `callModel` activity of LLM agents, with
 * the OpenAI client from OPENAI_API_KEY / OPENAI_BASE_URL (calls fail with `model_config`
 * when neither is set).
 */
import { DefaultLogger, NativeConnection, Worker } from '@temporalio/worker';
import { createModelActivities, openAIFromEnv } from '../../activities/model';
import { DurableAgentsPlugin } from '../../worker/plugin';
import { findTestAgent, testAgents } from './agents';
import { allToolImplementations } from './tools';
import { temporalConfigFromEnv } from '../../config/temporal';
import { tenantsConfigFromEnv } from '../../config/tenants-file';
import type { PriceTable } from '../../contracts/pricing';
import { installTelemetry } from '../../worker/telemetry';
import { FileSideEffectSink } from './file-side-effects';

async function main(): Promise<void> {
  // Metrics in Prometheus format when DURABLE_AGENTS_PROMETHEUS is set, as a user's worker would.
  installTelemetry({ logger: new DefaultLogger('WARN') });
  const config = temporalConfigFromEnv();
  const sideEffectFile = process.env.SIDE_EFFECT_FILE;
  const bundlePath = process.env.DURABLE_AGENTS_TEST_BUNDLE;
  if (!sideEffectFile || !bundlePath) throw new Error('SIDE_EFFECT_FILE and DURABLE_AGENTS_TEST_BUNDLE must be set');
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address: config.address }),
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    workflowBundle: { codePath: bundlePath },
    // The plugin a user's worker gets; WORKER_OPTIONS (JSON) overrides worker options for measurements.
    plugins: [
      new DurableAgentsPlugin({
        agents: testAgents,
        tools: allToolImplementations({ sideEffects: new FileSideEffectSink(sideEffectFile) }),
        runtime: createModelActivities({ openai: openAIFromEnv(), findAgent: findTestAgent, ...(process.env.DURABLE_AGENTS_TEST_PRICES ? { prices: JSON.parse(process.env.DURABLE_AGENTS_TEST_PRICES) as PriceTable } : {}) }),
        tenants: tenantsConfigFromEnv() ?? null,
      }),
    ],
    ...(process.env.WORKER_OPTIONS ? (JSON.parse(process.env.WORKER_OPTIONS) as object) : {}),
  });
  process.stdout.write('ready\n');
  await worker.run();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
