import { NativeConnection, Worker, bundleWorkflowCode, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { ActivityDependencies, ToolImplementation } from '../activities';
import { createModelActivities, openAIFromEnv } from '../activities/model';
import { connectionOptions, type TemporalConfig } from './config';

/** Path of the workflow bundle's entry module. */
export const workflowsPath = require.resolve('../workflows');

/** Bundles the workflow code once; reuse the result for every worker of a process. */
export function buildWorkflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({ workflowsPath, logger: { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: console.warn, error: console.error } });
}

/** Options of {@link createAgentWorker}. */
export interface AgentWorkerOptions {
  readonly config: TemporalConfig;
  readonly tools: readonly ToolImplementation[];
  /** A prebuilt bundle; built on the fly when absent. */
  readonly workflowBundle?: WorkflowBundleWithSourceMap;
  readonly connection?: NativeConnection;
  readonly identity?: string;
  /**
   * Runtime activities (the model activity of LLM planners). Default: `callModel` with the
   * OpenAI client from OPENAI_API_KEY / OPENAI_BASE_URL (calls fail with `model_config` when unset).
   */
  readonly runtime?: ActivityDependencies['runtime'];
  /** Further Temporal worker options (concurrency, cache size, eager dispatch …). */
  readonly workerOptions?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'workflowBundle' | 'workflowsPath' | 'activities'>>;
}

/**
 * Creates a worker that runs `agentRun` workflows and one activity per tool.
 *
 * @example
 * const worker = await createAgentWorker({ config: temporalConfigFromEnv(), tools: allToolImplementations() });
 * await worker.run();
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const connection = options.connection ?? (await NativeConnection.connect(connectionOptions(options.config)));
  return Worker.create({
    connection,
    namespace: options.config.namespace,
    taskQueue: options.config.taskQueue,
    workflowBundle: options.workflowBundle ?? (await buildWorkflowBundle()),
    activities: createActivities({ tools: options.tools, runtime: options.runtime ?? createModelActivities({ openai: openAIFromEnv() }) }),
    ...(options.identity ? { identity: options.identity } : {}),
    ...options.workerOptions,
  });
}
