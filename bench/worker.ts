import type { NativeConnection, Worker, WorkerOptions, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { z } from 'zod';
import { implementTool } from '../activities/tool-implementation';
import { benchAgents, localEchoTool } from './agents';
import { MemorySideEffectSink, toolboxImplementations } from '../examples/toolbox/tools';
import type { TemporalConfig } from '../config/temporal';
import type { TenantsConfig } from '../contracts/tenant-settings';
import { createAgentWorker } from '../worker/create-worker';

/** Worker options a benchmark may override to experiment with tuning (`--worker-options`). */
export const workerTuningSchema = z
  .object({
    maxConcurrentWorkflowTaskExecutions: z.number().int().positive(),
    maxConcurrentWorkflowTaskPolls: z.number().int().positive(),
    maxConcurrentActivityTaskExecutions: z.number().int().positive(),
    maxConcurrentActivityTaskPolls: z.number().int().positive(),
    maxCachedWorkflows: z.number().int().nonnegative(),
    maxEagerActivityReservationsPerWorkflowTask: z.number().int().nonnegative(),
    nonStickyToStickyPollRatio: z.number().positive(),
    workflowThreadPoolSize: z.number().int().positive(),
  })
  .partial()
  .strict();
export type WorkerTuning = z.infer<typeof workerTuningSchema>;

/** Options of {@link createBenchWorker}. */
export interface BenchWorkerOptions {
  readonly config: TemporalConfig;
  readonly connection: NativeConnection;
  readonly workflowBundle: WorkflowBundleWithSourceMap;
  readonly tuning: WorkerTuning;
  /** Options beyond the tuning (the cached-heap measure runs workflows on the main thread). */
  readonly extra?: Pick<WorkerOptions, 'debugMode' | 'maxCachedWorkflows'>;
  /** The deployment's tenants file (quotas, dispatch): the plugin's `tenants` option. Default: none. */
  readonly tenants?: TenantsConfig;
}

/** The benchmark's workflows module. */
export const benchWorkflowsPath = require.resolve('./workflows');

/** The in-process worker of the benchmark: the bench agents' tools and any tuning options. */
export async function createBenchWorker(options: BenchWorkerOptions): Promise<Worker> {
  const { config, connection, workflowBundle, tuning, extra, tenants } = options;
  const tools = [...toolboxImplementations(new MemorySideEffectSink()), implementTool(localEchoTool, ({ text }) => ({ text }))];
  return createAgentWorker({ config, agents: benchAgents, tools, workflowBundle, connection, identity: 'bench-worker', workerOptions: { ...tuning, ...extra }, openai: null, ...(tenants ? { tenants } : {}) });
}
