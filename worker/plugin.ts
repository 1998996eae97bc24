import { SimplePlugin } from '@temporalio/plugin';
import type { BundleOptions, InjectedSinks, ReplayWorkerOptions, Worker, WorkerOptions } from '@temporalio/worker';
import type OpenAI from 'openai';
import { createActivities, type ActivityDependencies, type ToolImplementation } from '../activities';
import { createDeliverScheduledMessage } from '../activities/sessions/deliver-scheduled-message';
import { createApprovalNotifier, type ApprovalNotifierOptions } from '../activities/approval-notifier';
import { createApprovalJudges } from '../activities/approval-judges';
import type { ApprovalJudge } from '../contracts/approval-judge';
import { deliverScheduledMessageActivityName } from '../contracts/session-schedule';
import type { TenantsConfig } from '../contracts/tenant-settings';
import { createTenantAccountActivities } from '../activities/tenant-accounts';
import { createModelActivities, type DeltaSink, type ModelActivityDependencies } from '../activities/model';
import type { AgentDefinition } from '../workflows/agents/agent-registry';
import { durableAgentsSinkName, type DurableAgentsSinks } from '../workflows/bundle/bundle-sinks';
import { createMcpActivities, mcpModelTools, McpClientPool, type McpServerConfig } from '../activities/mcp';
import { compileOwnSourcesAtEs2022 } from './bundle-target';
import { workerDeploymentOptions, type AgentDeployment } from './deployment';
import { agentActivityInterceptors } from './agent-activity-metrics';
import { wellFormedActivityInterceptors } from './well-formed-activity';
import { EncryptionCodec, type EncryptionKeys } from '../config/encryption';
import type { AgentTracingOptions } from '../config/tracing';
import type * as TracingModule from './tracing';
import { workflowSourceModule, workflowTracingModule } from './workflow-sources';

/**
 * Options of {@link DurableAgentsPlugin}. The plugin reads no environment variable: what is not
 * given here is off. `workerConfigFromEnv()` reads the environment for you (spread it first).
 */
export interface DurableAgentsPluginOptions {
  /** The agents this worker serves: the same definitions its workflows module passes to `createAgentWorkflows`. */
  readonly agents: readonly AgentDefinition[];
  /** Implementations of the agents' tools (`implementTool`). */
  readonly tools: readonly ToolImplementation[];
  /**
   * Client of the model endpoint for LLM agents (`openAIFromEnv()` reads OPENAI_API_KEY /
   * OPENAI_BASE_URL). Absent or `null`: model calls fail with `model_config`.
   */
  readonly openai?: Pick<OpenAI, 'chat'> | null;
  /**
   * Further model-activity settings (transcript cache, heartbeat period, token deltas: absent
   * `deltas` publishes none; `deltaPublisherFromEnv()` reads DURABLE_AGENTS_DELTAS_URL / _TOKEN).
   */
  readonly model?: Omit<ModelActivityDependencies, 'openai' | 'findAgent'>;
  /** Replaces the runtime activities (`callModel`) altogether, e.g. with a test double. */
  readonly runtime?: ActivityDependencies['runtime'];
  /**
   * Posts a signed approval link to a webhook when a call of a run with `confirmation.notify`
   * starts to wait (docs/human-in-the-loop.md, "Approvals from outside"). Absent: such notices are
   * retried until a worker with a notifier takes them.
   */
  readonly approvalNotifier?: ApprovalNotifierOptions;
  /**
   * The judges of `judge` approval rules, by name: each approves, rejects or escalates a call
   * (docs/human-in-the-loop.md, "Approval rules"). A run whose judge this worker lacks asks a person.
   * A judge's model call (its judgement's `usage`) is priced with `model.prices` and counted in the run's budgets.
   */
  readonly approvalJudges?: Readonly<Record<string, ApprovalJudge>>;
  /**
   * The deployment's tenants file (`tenantsConfigFromEnv()` reads DURABLE_AGENTS_TENANTS_FILE):
   * with it, runs with a tenant join their tenant's account, which admits them under the tenant's
   * quotas and keeps its ledger (docs/serving-many-users.md). Absent or `null`: no accounts.
   */
  readonly tenants?: TenantsConfig | null;
  /**
   * Encrypts every payload with AES-256-GCM ({@link EncryptionCodec}); the first key encrypts,
   * all decrypt (`encryptionKeysFromEnv()` reads DURABLE_AGENTS_ENCRYPTION_KEYS(_FILE)).
   * Absent or `null`: payloads are not encrypted.
   */
  readonly encryption?: EncryptionKeys | null;
  /**
   * The MCP servers the agents' toolsets name (`mcpToolset({ server })`), by name: how this worker
   * reaches each one (stdio command or streamable HTTP URL, with their secrets). The worker keeps
   * one connection per server, opened on first use and closed when the worker stops.
   */
  readonly mcpServers?: Readonly<Record<string, McpServerConfig>>;
  /**
   * Worker versioning: the Worker Deployment and build id this worker serves, and how its runs
   * move between versions (default `PINNED`: a run finishes on the version it started on).
   * `deploymentFromEnv()` reads DURABLE_AGENTS_DEPLOYMENT_NAME / DURABLE_AGENTS_BUILD_ID /
   * DURABLE_AGENTS_VERSIONING_BEHAVIOR. Absent or `null`: unversioned.
   * A worker option `workerDeploymentOptions` of your own takes precedence.
   */
  readonly deployment?: AgentDeployment | null;
  /**
   * OpenTelemetry tracing through Temporal's interceptors: a span per run (`RunWorkflow:agentRun`),
   * per scheduled and executed activity (`StartActivity:…`, `RunActivity:<agent>/<tool>`,
   * `RunActivity:callModel`), per signal, update and query, children of the client's span that
   * started the run. Adds the workflow interceptor module to the bundle (a prebuilt bundle needs
   * `bundleAgentWorkflows(path, { tracing: true })`). `tracingFromEnv()` reads
   * DURABLE_AGENTS_TRACING (`otlp`). Absent or `null`: no tracing.
   */
  readonly tracing?: AgentTracingOptions | null;
  /**
   * How the plugin bundles workflow code when the worker has no prebuilt bundle: zod shared
   * between executions unless `shareZod: false` ({@link AgentBundlerOptions}). A prebuilt bundle
   * takes it from `bundleAgentWorkflows(path, { shareZod })`.
   */
  readonly bundler?: AgentBundlerOptions;
}

/** Heartbeat throttle of workers serving agents (unless the worker options set one). */
export const toolHeartbeatThrottle = '1s';

/** How long a run's workflow task waits for the worker that has the run cached (unless the worker options set it). */
export const stickyTaskTimeout = '2s';

/**
 * The module every durable-agents bundle must import as `durable-agents/workflow`: this
 * package's own copy, so a bundle never mixes two copies of the runtime.
 */
const workflowEntry = workflowSourceModule('index');

/**
 * Interceptors every durable-agents bundle needs: they write the memo change of a turn boundary
 * that no activity marks (workflows/run/turn-boundaries.ts). A run must replay on a bundle that has
 * them if it was recorded with them, as with any change to the commands.
 */
const boundaryInterceptorsModule = workflowSourceModule('run/boundary-interceptors');

/**
 * Preloaded into each reusable workflow context (see workflows/bundle/zod-preload.ts): zod evaluated
 * once per worker thread rather than once per execution. The SDK deep-freezes preloaded modules;
 * that module makes zod's lazy global-config writes before the freeze.
 */
const zodPreloadModule = workflowSourceModule('bundle/zod-preload');

/** Options of {@link configureAgentBundler}. */
export interface AgentBundlerOptions {
  /**
   * Evaluate zod once per worker thread and share it between executions (default true). A run
   * then starts with zod's module graph and schema classes ready, about a quarter less CPU per
   * execution; the price is that workflow code cannot call `z.config(...)`, whose object the SDK
   * freezes after the preload. False evaluates zod in every execution, as any other module.
   */
  readonly shareZod?: boolean;
}

/**
 * Bundler settings of durable-agents workflows (any bundle that imports `durable-agents/workflow`).
 *
 * Webpack concatenates ES modules into one scope (`optimization.concatenateModules`, which the
 * SDK's development-mode bundle leaves off): a new execution evaluates one function per group
 * of modules instead of one per module, with plain variables instead of export accessors.
 * The published package's bundles take `dist/esm` for it (worker/workflow-sources.ts). Measured
 * on the benchmark's bundle (replays of a 1-turn run): 18.7 → 11.9 ms CPU to start a run from
 * the published package (CommonJS before), 14.0 → 12.5 ms from a checkout. Module evaluation
 * order, and so every command a run emits, stays the same. A `webpackConfigHook` of yours sees
 * it on and may turn it off.
 *
 * @param aliases further module aliases (the fork replay bundle swaps a flag module with one).
 * @param bundler whether zod is shared between executions ({@link AgentBundlerOptions}).
 */
export function configureAgentBundler(options: BundleOptions, aliases: Record<string, string> = {}, bundler: AgentBundlerOptions = {}): BundleOptions {
  const userHook = options.webpackConfigHook;
  const preloadModules = [...new Set([...(bundler.shareZod === false ? [] : [zodPreloadModule]), ...(options.preloadModules ?? [])])];
  return {
    ...options,
    ...(preloadModules.length ? { preloadModules } : {}),
    workflowInterceptorModules: [...new Set([boundaryInterceptorsModule, ...(options.workflowInterceptorModules ?? [])])],
    webpackConfigHook: (config) => {
      // Before the user's hook, so a user can turn it off again.
      const concatenated = { ...config, optimization: { ...config.optimization, concatenateModules: true } };
      const base = userHook ? userHook(concatenated) : concatenated;
      const alias = base.resolve?.alias;
      return compileOwnSourcesAtEs2022({
        ...base,
        resolve: {
          ...base.resolve,
          alias: { ...(Array.isArray(alias) ? {} : alias), 'durable-agents/workflow$': workflowEntry, ...aliases },
        },
      });
    },
  };
}

/**
 * The worker's tracing module (./tracing), loaded by a worker that traces: the OpenTelemetry SDK
 * and its exporter take about 120 ms to load, which every worker paid. Synchronous, as the
 * plugin's constructor is.
 */
function loadTracing(): typeof TracingModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('./tracing') as typeof TracingModule;
}

/**
 * The bundle's sinks on a worker: a missing agent is logged, and a run whose event log grew is
 * announced where its followers listen (`announce`: the deltas publisher's, if any).
 */
function workerSinks(log: (message: string) => void, announce?: DeltaSink['announce']): InjectedSinks<DurableAgentsSinks> {
  return {
    [durableAgentsSinkName]: {
      unknownAgent: { fn: (info, agent, known) => log(`run ${info.workflowId} asked for agent ${JSON.stringify(agent)}; this bundle has: ${known.join(', ') || '(none)'}`) },
      boundary: { fn: () => undefined },
      eventsAppended: { fn: (info, lastSeq) => announce?.({ workflowId: info.workflowId, lastSeq }) },
    },
  };
}

/**
 * A Temporal worker plugin that makes a worker serve durable-agents runs: it registers one
 * activity per tool of each agent (`<agent>/<tool>`), the model activity of LLM agents, the
 * bundler settings for `workflowsPath`, and the bundle's sinks.
 *
 * @throws Error (at construction) when an agent's tool has no implementation, or a toolset names an MCP server `mcpServers` does not configure.
 * @example
 * import { NativeConnection, Worker } from '@temporalio/worker';
 * import { notesAgent } from './agent';
 * declare const addNoteImpl: ToolImplementation; // implementTool(addNote, …)
 * const worker = await Worker.create({
 *   connection: await NativeConnection.connect(), taskQueue: 'agents', workflowsPath: require.resolve('./workflows'),
 *   plugins: [new DurableAgentsPlugin({ agents: [notesAgent], tools: [addNoteImpl] })],
 * });
 */
export class DurableAgentsPlugin extends SimplePlugin {
  private readonly agentActivities: Record<string, (input: unknown) => Promise<unknown>>;
  /** The worker's MCP connections (present when `mcpServers` is given). */
  readonly mcpPool: McpClientPool | undefined;
  private readonly deploymentOptions: WorkerOptions['workerDeploymentOptions'];
  private readonly tracing: TracingModule.WorkerTracing | undefined;
  private readonly bundler: AgentBundlerOptions;
  /** Where runs' new events are announced (the model activity's deltas publisher). */
  private readonly announce: DeltaSink['announce'];

  constructor(options: DurableAgentsPluginOptions) {
    const agents = options.agents;
    const pool = options.mcpServers ? new McpClientPool(options.mcpServers) : undefined;
    for (const agent of agents) {
      for (const toolset of agent.toolsets ?? []) {
        if (!pool?.has(toolset.server)) {
          throw new Error(`agent ${agent.name}: toolset ${toolset.name} uses MCP server ${toolset.server}, which mcpServers does not configure (configured: ${pool?.serverNames.join(', ') || 'none'})`);
        }
      }
    }
    const openai = options.openai ?? undefined;
    const runtime =
      options.runtime ??
      createModelActivities({
        ...options.model,
        ...(openai ? { openai } : {}),
        findAgent: (name) => agents.find((a) => a.name === name),
        ...(pool ? { mcpTools: mcpModelTools(pool) } : {}),
      });
    const activities = {
      ...createActivities({ agents, tools: options.tools, runtime: pool ? { ...runtime, ...createMcpActivities(pool) } : runtime }),
      // Sessions' schedules post through it (workflows/sessions/scheduled-message.ts), whatever the runtime.
      [deliverScheduledMessageActivityName]: createDeliverScheduledMessage(),
      ...(options.approvalNotifier ? createApprovalNotifier(options.approvalNotifier) : {}),
      ...(options.approvalJudges ? createApprovalJudges(options.approvalJudges, options.model?.prices) : {}),
      ...createTenantAccountActivities(options.tenants ?? undefined),
    };
    const keys = options.encryption ?? undefined;
    const codec = keys ? new EncryptionCodec(keys) : undefined;
    const tracingOptions = options.tracing ?? undefined;
    const tracing = tracingOptions ? loadTracing().workerTracing(tracingOptions) : undefined;
    super({
      name: 'durable-agents',
      activities,
      workerInterceptors: {
        // Outermost, the one that makes every string leaving an activity well-formed (a lone
        // surrogate in a failure would stop the worker). Then the tracing interceptor: it opens
        // the activity's span, the agents' one inside it labels it.
        activity: [wellFormedActivityInterceptors, ...(tracing ? [tracing.activityInterceptors] : []), agentActivityInterceptors],
        ...(tracing ? { workflowModules: [workflowTracingModule], client: { workflow: tracing.clientInterceptors } } : {}),
      },
      // Spans still batched when the worker stops are sent before `run()` returns.
      ...(tracing?.resolved.spanProcessor ? { runContext: (next: () => Promise<void>) => next().finally(() => tracing.resolved.spanProcessor?.forceFlush()) } : {}),
      // Appended to the worker's own codecs, so they see plaintext and the server sees ciphertext.
      ...(codec ? { dataConverter: (dc) => ({ ...dc, payloadCodecs: [...(dc?.payloadCodecs ?? []), codec] }) } : {}),
    });
    this.agentActivities = activities;
    this.mcpPool = pool;
    this.tracing = tracing;
    this.bundler = options.bundler ?? {};
    const deltas = options.model?.deltas;
    this.announce = deltas?.announce ? (announcement) => deltas.announce?.(announcement) : undefined;
    const deployment = options.deployment ?? undefined;
    this.deploymentOptions = deployment ? workerDeploymentOptions(deployment) : undefined;
  }

  /** Runs the worker; closes the MCP connections (stdio servers exit) when it stops. */
  override async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    try {
      await super.runWorker(worker, next);
    } finally {
      await this.mcpPool?.close();
    }
  }

  /** The worker deployment options this plugin gives workers (undefined: unversioned). */
  get workerDeploymentOptions(): WorkerOptions['workerDeploymentOptions'] {
    return this.deploymentOptions;
  }

  /** The activities this plugin registers, by activity type (for inspection and tests). */
  get activityTypes(): string[] {
    return Object.keys(this.agentActivities).sort();
  }

  override configureWorker(options: WorkerOptions): WorkerOptions {
    const configured = super.configureWorker(options);
    const log = (message: string): void => console.warn(`durable-agents: ${message}`);
    return {
      ...configured,
      // Tools heartbeat on their own; the server hears it about once a second, so a kill or a
      // spent time budget reaches a running tool within about a second (the run waits for the
      // tool to stop before it answers the call as cancelled).
      defaultHeartbeatThrottleInterval: configured.defaultHeartbeatThrottleInterval ?? toolHeartbeatThrottle,
      maxHeartbeatThrottleInterval: configured.maxHeartbeatThrottleInterval ?? toolHeartbeatThrottle,
      // A run's workflow tasks go to the worker that has it cached (its sticky queue); when that
      // worker dies, they wait this long before another worker takes them. The SDK's 10 s made
      // runs stall ~10 s after a crash although a standby worker was idle; the price of a short
      // wait is a replay (CPU) on another worker when the caching one is merely slow.
      stickyQueueScheduleToStartTimeout: configured.stickyQueueScheduleToStartTimeout ?? stickyTaskTimeout,
      sinks: { ...workerSinks(log, this.announce), ...this.traceSinks(), ...configured.sinks },
      ...(this.deploymentOptions && !configured.workerDeploymentOptions ? { workerDeploymentOptions: this.deploymentOptions } : {}),
    };
  }

  override configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    const configured = super.configureReplayWorker(options);
    return { ...configured, sinks: { ...workerSinks(() => {}), ...this.traceSinks(), ...configured.sinks } };
  }

  /** The sink through which traced workflows export their spans (none without tracing). */
  private traceSinks(): InjectedSinks<Record<string, never>> {
    return this.tracing ? (this.tracing.sinks() as InjectedSinks<Record<string, never>>) : {};
  }

  override configureBundler(options: BundleOptions): BundleOptions {
    return configureAgentBundler(super.configureBundler(options), {}, this.bundler);
  }
}
