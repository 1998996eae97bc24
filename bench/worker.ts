import { NativeConnection, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { z } from 'zod';
import { createActivities } from '../activities';
import { allToolImplementations } from '../agents';
import type { TemporalConfig } from '../worker/config';
import { createAgentWorker } from '../worker/create-worker';

/**
 * Worker options a benchmark may override to experiment with tuning. createAgentWorker does
 * not take them, so when any is given the bench builds the worker itself (same bundle,
 * same activities, plus these options).
 */
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
}

/**
 * The in-process worker of the benchmark, with every tool of `agents/`. Uses
 * createAgentWorker unless tuning options are given.
 */
export async function createBenchWorker(options: BenchWorkerOptions): Promise<Worker> {
  const { config, connection, workflowBundle, tuning } = options;
  const tools = allToolImplementations();
  if (Object.keys(tuning).length === 0) {
    return createAgentWorker({ config, tools, workflowBundle, connection, identity: 'bench-worker' });
  }
  return Worker.create({
    connection,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    workflowBundle,
    activities: createActivities({ tools }),
    identity: 'bench-worker',
    ...tuning,
  });
}
