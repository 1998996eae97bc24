import { NativeConnection, Worker, bundleWorkflowCode, type BundleOptions, type WorkerOptions, type WorkflowBundleOption, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { connectionOptions, type TemporalConfig } from '../config/temporal';
import { withWorkerEnvDefaults } from './config-worker';
import { configureAgentBundler, DurableAgentsPlugin, type AgentBundlerOptions, type DurableAgentsPluginOptions } from './plugin';
import { workflowTracingModule } from './workflow-sources';

/** Bundler logger that keeps only warnings and errors. */
export const quietBundlerLogger = { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: console.warn, error: console.error };

/**
 * Bundles a workflows module (one that exports `createAgentWorkflows(...)`'s workflows) once;
 * reuse the result for every worker of a process, and for replay.
 *
 * @param options.tracing include Temporal's OpenTelemetry workflow interceptors, for workers with
 *   the `tracing` option (a bundle without them runs traced workers' runs untraced).
 * @param options.shareZod evaluate zod once per worker thread, shared by executions (default
 *   true; see {@link AgentBundlerOptions}).
 * @example
 * const bundle = await bundleAgentWorkflows(require.resolve('./workflows'));
 */
export function bundleAgentWorkflows(workflowsPath: string, options: { readonly tracing?: boolean } & AgentBundlerOptions = {}): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode(agentBundleOptions(workflowsPath, options));
}

/**
 * The SDK bundler's options {@link bundleAgentWorkflows} builds with (not exported from
 * durable-agents/worker; the tests' bundle cache adds webpack's cache to them).
 */
export function agentBundleOptions(workflowsPath: string, options: { readonly tracing?: boolean } & AgentBundlerOptions = {}): BundleOptions {
  return configureAgentBundler({ workflowsPath, logger: quietBundlerLogger, ...(options.tracing ? { workflowInterceptorModules: [workflowTracingModule] } : {}) }, {}, options);
}

/** Options of {@link createAgentWorker}. */
export interface AgentWorkerOptions extends DurableAgentsPluginOptions {
  /** Your workflows module; ignored when `workflowBundle` is given. */
  readonly workflowsPath?: string;
  /** A prebuilt bundle (see {@link bundleAgentWorkflows}). */
  readonly workflowBundle?: WorkflowBundleOption;
  /** Where and how to reach Temporal. Default: from `TEMPORAL_*` environment variables. */
  readonly config?: TemporalConfig;
  readonly connection?: NativeConnection;
  readonly identity?: string;
  /** Further Temporal worker options (concurrency, cache size, eager dispatch, plugins …). */
  readonly workerOptions?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'workflowBundle' | 'workflowsPath' | 'activities'>>;
}

/**
 * Creates a worker for your agents: your workflows module, one activity per tool of each agent,
 * and the model activity of LLM agents, on the task queue of `config`. The one-call factory reads
 * what its options leave out from the environment, as `workerConfigFromEnv()` does (the
 * Temporal connection, OPENAI_*, encryption keys, tracing, deployment, token deltas); `null`
 * keeps a feature off. `DurableAgentsPlugin` reads nothing by itself.
 *
 * @throws Error when neither `workflowsPath` nor `workflowBundle` is given, or a tool has no implementation.
 * @example
 * import { notesAgent } from './agent';
 * declare const addNoteImpl: ToolImplementation; // implementTool(addNote, …)
 * const worker = await createAgentWorker({
 *   workflowsPath: require.resolve('./workflows'), agents: [notesAgent], tools: [addNoteImpl],
 *   // Optional worker versioning (default: DURABLE_AGENTS_DEPLOYMENT_NAME / _BUILD_ID, if set).
 *   deployment: { name: 'notes', buildId: process.env.GIT_SHA ?? 'dev' },
 * });
 * await worker.run();
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  if (!options.workflowBundle && !options.workflowsPath) throw new Error('createAgentWorker: give workflowsPath (your workflows module) or workflowBundle');
  const resolved = withWorkerEnvDefaults(options);
  const config = resolved.config;
  const connection = options.connection ?? (await NativeConnection.connect(connectionOptions(config)));
  const plugin = new DurableAgentsPlugin(resolved);
  return Worker.create({
    connection,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: options.workflowsPath }),
    ...(options.identity ? { identity: options.identity } : {}),
    ...options.workerOptions,
    plugins: [plugin, ...(options.workerOptions?.plugins ?? [])],
  });
}
