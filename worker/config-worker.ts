import type OpenAI from 'openai';
import { deltaPublisherFromEnv, openAIFromEnv, type DeltaSink } from '../activities/model';
import { temporalConfigFromEnv, type TemporalConfig } from '../config/temporal';
import { deploymentFromEnv, type AgentDeployment } from './deployment';
import { encryptionKeysFromEnv, type EncryptionKeys } from '../config/encryption';
import { tracingFromEnv } from '../config/telemetry-env';
import type { AgentTracingOptions } from '../config/tracing';
import { tenantsConfigFromEnv } from '../config/tenants-file';
import type { TenantsConfig } from '../contracts/tenant-settings';

/**
 * A worker's settings as its environment gives them: options of `createAgentWorker` and of
 * `DurableAgentsPlugin` (which ignores `config`). What the environment does not set is absent.
 */
export interface WorkerEnvConfig {
  /** TEMPORAL_* and the Temporal config file's profile (see `temporalConfigFromEnv`). */
  readonly config: TemporalConfig;
  /** OPENAI_API_KEY / OPENAI_BASE_URL. */
  readonly openai?: Pick<OpenAI, 'chat'>;
  /** DURABLE_AGENTS_ENCRYPTION_KEYS / _FILE. */
  readonly encryption?: EncryptionKeys;
  /** DURABLE_AGENTS_TRACING (`otlp`) and the OTEL_* variables. */
  readonly tracing?: AgentTracingOptions;
  /** DURABLE_AGENTS_DEPLOYMENT_NAME / _BUILD_ID / DURABLE_AGENTS_VERSIONING_BEHAVIOR. */
  readonly deployment?: AgentDeployment;
  /** Token deltas to the HTTP server: DURABLE_AGENTS_DELTAS_URL / _TOKEN. */
  readonly model?: { readonly deltas: DeltaSink };
  /** DURABLE_AGENTS_TENANTS_FILE. */
  readonly tenants?: TenantsConfig;
}

/** The options {@link workerConfigFromEnv} fills in, as a worker's options type them. */
interface WorkerEnvOptions {
  readonly config?: TemporalConfig;
  readonly openai?: Pick<OpenAI, 'chat'> | null;
  readonly encryption?: EncryptionKeys | null;
  readonly tracing?: AgentTracingOptions | null;
  readonly deployment?: AgentDeployment | null;
  readonly model?: { readonly deltas?: DeltaSink };
  readonly tenants?: TenantsConfig | null;
}

/**
 * `options` with what they leave out (`undefined`) read from the environment, each variable only
 * when its option is absent; `null` keeps a feature off.
 */
export function withWorkerEnvDefaults<T extends WorkerEnvOptions>(options: T, env: NodeJS.ProcessEnv = process.env): T & { readonly config: TemporalConfig } {
  const openai = options.openai === undefined ? openAIFromEnv(env) : undefined;
  const encryption = options.encryption === undefined ? encryptionKeysFromEnv(env) : undefined;
  const tracing = options.tracing === undefined ? tracingFromEnv(env) : undefined;
  const deployment = options.deployment === undefined ? deploymentFromEnv(env) : undefined;
  const deltas = options.model?.deltas === undefined ? deltaPublisherFromEnv(env) : undefined;
  const tenants = options.tenants === undefined ? tenantsConfigFromEnv(env) : undefined;
  return {
    ...options,
    config: options.config ?? temporalConfigFromEnv(env),
    ...(openai ? { openai } : {}),
    ...(encryption ? { encryption } : {}),
    ...(tracing ? { tracing } : {}),
    ...(deployment ? { deployment } : {}),
    ...(deltas ? { model: { ...options.model, deltas } } : {}),
    ...(tenants ? { tenants } : {}),
  };
}

/**
 * Everything a worker reads from the environment, for a worker whose configuration lives there
 * (a container, the examples): `DurableAgentsPlugin` and `AgentClient.connect` read nothing by
 * themselves. Spread it before your own options, which win.
 *
 * @throws Error naming the variable whose value is malformed.
 * @example
 * import { NativeConnection, Worker } from '@temporalio/worker';
 * import { notesAgent } from './agent';
 * declare const addNoteImpl: ToolImplementation; // implementTool(addNote, …)
 * const { config, ...fromEnv } = workerConfigFromEnv();
 * const worker = await Worker.create({
 *   connection: await NativeConnection.connect(connectionOptions(config)), namespace: config.namespace, taskQueue: config.taskQueue,
 *   workflowsPath: require.resolve('./workflows'),
 *   plugins: [new DurableAgentsPlugin({ ...fromEnv, agents: [notesAgent], tools: [addNoteImpl] })],
 * });
 */
export function workerConfigFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerEnvConfig {
  return withWorkerEnvDefaults({}, env);
}
