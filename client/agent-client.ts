import { Client } from '@temporalio/client';
import {
  type AwaitAnswer,
  type BudgetChange,
  type CallDecision,
  type CostReport,
  type EventPage,
  type Intervention,
  type InterventionReceipt,
  type KillRequest,
  type PauseRequest,
  type PauseResult,
  type PendingInputs,
  type RunEvent,
  type RunInput,
  type RunResult,
  type RunStatusReport,
  type SessionInput,
  type SessionMessage,
  type SessionRunRecord,
} from '../contracts';
import type { RunOperationName } from '../contracts/operations';
import type { ApprovalRules } from '../contracts/approval-policy';
import type { TenantsConfig } from '../contracts/tenant-settings';
import { temporalConfigFromEnv, type TemporalConfig } from '../config/temporal';
import { EncryptedPayloadGuard } from '../config/encryption';
import type { Checkpoint, CorrectionDelivery, RewindOptions } from '../history/checkpoints';
import type { RunRewind } from '../history/rewinds';
import { connectTo } from './connect';
import { clientOptionsFromEnv, tracingInterceptors, type AgentClientConnectOptions } from './connect-options';
import type { ExportedExecution } from './history';
import type { HistoryEntry, HistoryStatus } from './history-view';
import type { PendingInputsOptions, QueryOptions } from './query-options';
import { RunCalls } from './run-calls';
import type { FollowOptions } from './run-follow';
import { RunHandle } from './run-handle';
import { startRun } from './run-start';
import { decideInTree, followTree, pendingInputsTree, recordedRunTree, runTree, type RecordedRunTree, type RunPendingInputs, type RunTree, type TreeEvent, type TreePendingInputs } from './run-tree';
import { SessionHandle, sessionWorkflowId } from './session-handle';
import type { StartOptions } from './start-needs-worker';
import type { RunWorkerVersion } from './worker-version';
import type { WorkerPresence } from './worker-presence';

export { AgentClientError, NoWorkerError, RunNotStartedError, type AgentClientErrorType } from './errors';
export type { PendingInputsOptions, QueryOptions } from './query-options';
export { workerProbeMs } from './run-calls';
export { clientOptionsFromEnv, type AgentClientConnectOptions } from './connect-options';

/**
 * Typed client of agent runs and sessions: it starts runs and hands out their handles.
 * `agents.run(id)` is one run ({@link RunHandle}: status, events, follow, the operations,
 * history, checkpoints, rewind), `agents.session(id)` one session ({@link SessionHandle}), as
 * Temporal's `WorkflowHandle` is one workflow; the tree functions (`runTree`, `decideInTree`, …)
 * take the client as their source of handles. The per-run methods here take the run's workflow
 * id first and do what the handle's method of the same name does.
 *
 * @example
 * const agents = await AgentClient.fromEnv();
 * const { workflowId } = await agents.start({ agent: 'watchlist', messages: [{ role: 'user', content: 'Add AAPL' }] });
 * const run = agents.run(workflowId);
 * for await (const event of run.follow()) console.log(event.type);
 */
export class AgentClient {
  /** What the handles of this client share. */
  private readonly runCalls: RunCalls;

  /**
   * @param searchAttributes set AgentName at start (needs the AgentName / AgentStatus search
   *   attributes registered on the namespace) so runs can be listed by agent and status.
   * @param options.tenants the deployment's tenants file: a tenant's runs and sessions start with
   *   its dispatch tier and weight (without it, with the tenant as fairness key alone).
   */
  constructor(
    readonly client: Client,
    readonly taskQueue: string,
    readonly searchAttributes = true,
    options: { readonly tenants?: TenantsConfig } = {},
  ) {
    this.runCalls = new RunCalls(client, taskQueue, searchAttributes, options.tenants);
  }

  /**
   * Connects with a config (default: a local dev server, 127.0.0.1:7233, namespace `default`,
   * task queue `durable-agents`) and options; it reads no environment variable
   * ({@link AgentClient.fromEnv} does). With tracing, each start, signal, update and query is a
   * span whose context travels to the run, so a run's spans are children of the client span
   * that started it.
   *
   * Without a config, when TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE or TEMPORAL_TASK_QUEUE is set,
   * it warns once (a process warning, code `DURABLE_AGENTS_ENV_NOT_READ`) that it does not read them.
   *
   * @throws Error naming the address and namespace when the server is unreachable.
   * @example
   * import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
   * declare const spanProcessor: SpanProcessor;
   * const agents = await AgentClient.connect({ address: 'temporal:7233', namespace: 'agents', taskQueue: 'notes' }, { tracing: { spanProcessor } });
   */
  static async connect(config?: TemporalConfig, options: AgentClientConnectOptions = {}): Promise<AgentClient> {
    // The OpenTelemetry SDK is loaded only for a client that traces (about 90 ms at each start of a process otherwise).
    const interceptors = options.tracing ? await tracingInterceptors(options.tracing) : undefined;
    const { connection, target } = await connectTo(config);
    const dataConverter = options.dataConverter ?? { payloadCodecs: [new EncryptedPayloadGuard()] };
    return new AgentClient(
      new Client({
        connection,
        namespace: target.namespace,
        ...(dataConverter ? { dataConverter } : {}),
        ...(interceptors ? { interceptors: { workflow: interceptors } } : {}),
      }),
      target.taskQueue,
      true,
      options.tenants ? { tenants: options.tenants } : {},
    );
  }

  /**
   * Connects as the environment says: the Temporal connection of the TEMPORAL_* variables (and
   * the Temporal config file's profile, see `temporalConfigFromEnv`), the encryption keys of
   * DURABLE_AGENTS_ENCRYPTION_KEYS, the tracing of DURABLE_AGENTS_TRACING and the tenants file of
   * DURABLE_AGENTS_TENANTS_FILE ({@link clientOptionsFromEnv}).
   *
   * @throws Error naming a malformed variable, or when the server is unreachable.
   * @example
   * const agents = await AgentClient.fromEnv(); // TEMPORAL_ADDRESS=127.0.0.1:7233 TEMPORAL_TASK_QUEUE=notes
   */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): Promise<AgentClient> {
    return AgentClient.connect(temporalConfigFromEnv(env), clientOptionsFromEnv(env));
  }

  /**
   * Starts a run after validating its input, on a task queue some worker has polled in the last
   * five minutes (a run on a queue none polls would wait for ever; `allowNoWorker` starts it anyway).
   *
   * @throws AgentClientError `invalid_input` naming the bad field; RunIdTakenError (`already_exists`)
   *   when a closed run holds `options.workflowId` (unless `reuseClosedId`);
   *   WorkflowExecutionAlreadyStartedError when a running one does; NoWorkerError naming the task
   *   queue when no worker has polled it (unless `allowNoWorker`).
   */
  start(input: RunInput, options: StartOptions = {}): Promise<{ workflowId: string; runId: string }> {
    return startRun(this.runCalls, input, options);
  }

  /**
   * The handle of run `workflowId`: what it reports and what can be done to it. Asks nothing of
   * the server; a run that does not exist is found out by the handle's first call
   * (AgentClientError `run_not_found`).
   *
   * @example
   * declare const agents: AgentClient;
   * const run = agents.run('run-notes-1');
   * await run.decide({ decision: 'approve', toolCallId: 'call_0_0' });
   * console.log((await run.result()).final?.text);
   */
  run(workflowId: string): RunHandle {
    return new RunHandle(this.runCalls, workflowId);
  }

  /** The handle of session `sessionId` (open it with `open`, then `sendMessage`). Asks nothing of the server. */
  session(sessionId: string): SessionHandle {
    return new SessionHandle(this.runCalls, sessionId);
  }

  /** Workflow id of the session with this id. */
  static sessionWorkflowId(sessionId: string): string {
    return sessionWorkflowId(sessionId);
  }

  /** Same as `agents.session(sessionId).open(input)`. */
  openSession(sessionId: string, input: SessionInput): Promise<string> {
    return this.session(sessionId).open(input);
  }

  /** Same as `agents.session(sessionId).sendMessage(message, options)`. */
  sendMessage(sessionId: string, message: SessionMessage, options: { readonly open?: SessionInput } = {}): Promise<SessionRunRecord> {
    return this.session(sessionId).sendMessage(message, options);
  }

  /** Same as `agents.session(sessionId).close()`. */
  closeSession(sessionId: string): Promise<void> {
    return this.session(sessionId).close();
  }

  /** Same as `agents.run(workflowId).confirmStarted(timeoutMs)`. */
  confirmStarted(workflowId: string, timeoutMs?: number): Promise<'running' | 'ended' | 'not_picked_up'> {
    return this.run(workflowId).confirmStarted(timeoutMs);
  }

  /** Same as `agents.run(workflowId).result(runId)`. */
  result(workflowId: string, runId?: string): Promise<RunResult> {
    return this.run(workflowId).result(runId);
  }

  /** Same as `agents.run(workflowId).status(options)`. */
  status(workflowId: string, options?: QueryOptions): Promise<RunStatusReport> {
    return this.run(workflowId).status(options);
  }

  /** Same as `agents.run(workflowId).events(afterSeq, limit, options)`. */
  events(workflowId: string, afterSeq?: number, limit?: number, options?: QueryOptions): Promise<EventPage> {
    return this.run(workflowId).events(afterSeq, limit, options);
  }

  /** Same as `agents.run(workflowId).statusFromHistory()`. */
  statusFromHistory(workflowId: string): Promise<HistoryStatus> {
    return this.run(workflowId).statusFromHistory();
  }

  /** Same as `agents.run(workflowId).workerVersion()`. */
  workerVersion(workflowId: string): Promise<RunWorkerVersion> {
    return this.run(workflowId).workerVersion();
  }

  /** Same as `agents.run(workflowId).history()`. */
  historyOf(workflowId: string): Promise<HistoryEntry[]> {
    return this.run(workflowId).history();
  }

  /** Same as `agents.run(workflowId).waitForEvents(afterSeq, timeoutMs)`. */
  waitForEvents(workflowId: string, afterSeq: number, timeoutMs?: number): Promise<EventPage> {
    return this.run(workflowId).waitForEvents(afterSeq, timeoutMs);
  }

  /** Same as `agents.run(workflowId).follow(options)`. */
  follow(workflowId: string, options?: FollowOptions): AsyncGenerator<RunEvent> {
    return this.run(workflowId).follow(options);
  }

  /** Same as `agents.run(workflowId).workerPresence()`. */
  workerPresence(workflowId: string): Promise<WorkerPresence> {
    return this.run(workflowId).workerPresence();
  }

  /** Same as `agents.run(workflowId).pause(request)`. */
  pause(workflowId: string, request?: PauseRequest): Promise<PauseResult> {
    return this.run(workflowId).pause(request);
  }

  /** Same as `agents.run(workflowId).resume({ reason })`. */
  resume(workflowId: string, reason?: string): Promise<RunStatusReport> {
    return this.run(workflowId).resume(reason ? { reason } : {});
  }

  /** Same as `agents.run(workflowId).intervene(intervention)`. */
  intervene(workflowId: string, intervention: Intervention): Promise<InterventionReceipt> {
    return this.run(workflowId).intervene(intervention);
  }

  /** Same as `agents.run(workflowId).setBudget(change)`. */
  setBudget(workflowId: string, change: BudgetChange): Promise<CostReport> {
    return this.run(workflowId).setBudget(change);
  }

  /** Same as `agents.run(workflowId).setApprovalRules(rules)`. */
  setApprovalRules(workflowId: string, rules: ApprovalRules): Promise<PendingInputs> {
    return this.run(workflowId).setApprovalRules(rules);
  }

  /** Same as `agents.run(workflowId).kill(request)`. */
  kill(workflowId: string, request?: KillRequest): Promise<RunStatusReport> {
    return this.run(workflowId).kill(request);
  }

  /** Same as `agents.run(workflowId).pendingInputs(options)`. */
  pendingInputs(workflowId: string, options?: PendingInputsOptions): Promise<RunPendingInputs> {
    return this.run(workflowId).pendingInputs(options);
  }

  /** Same as `agents.run(workflowId).answer(answer)`. */
  answer(workflowId: string, answer: AwaitAnswer): Promise<PendingInputs> {
    return this.run(workflowId).answer(answer);
  }

  /** Same as `agents.run(workflowId).decide(decision)`. */
  decide(workflowId: string, decision: CallDecision): Promise<PendingInputs> {
    return this.run(workflowId).decide(decision);
  }

  /** Same as `runTree(agents, workflowId, options)`: the run and the sub-agent runs its agent tools started, recursively. */
  tree(workflowId: string, options?: QueryOptions): Promise<RunTree> {
    return runTree(this, workflowId, options);
  }

  /** Same as `recordedRunTree(agents, workflowId)`: the tree as the runs' histories record it (no worker needed). */
  treeFromHistory(workflowId: string): Promise<RecordedRunTree> {
    return recordedRunTree(this, workflowId);
  }

  /** Same as `pendingInputsTree(agents, workflowId, undefined, options)`: what the runs of the tree wait on, each with its path. */
  pendingInputsTree(workflowId: string, options?: QueryOptions): Promise<TreePendingInputs[]> {
    return pendingInputsTree(this, workflowId, undefined, options);
  }

  /** Same as `decideInTree(agents, workflowId, path, decision)`: routed to the run at `path` that owns the call. */
  decideInTree(workflowId: string, path: readonly string[], decision: CallDecision): Promise<PendingInputs> {
    return decideInTree(this, workflowId, path, decision);
  }

  /** Same as `followTree(agents, workflowId, options)`: the run and every sub-agent run it starts, each event with its path. */
  followTree(workflowId: string, options?: { mode?: 'long-poll' | 'poll'; pollMs?: number }): AsyncGenerator<TreeEvent> {
    return followTree(this, workflowId, options);
  }

  /** Same as `agents.run(workflowId).checkpoints(runId)`. */
  checkpoints(workflowId: string, runId?: string): Promise<Checkpoint[]> {
    return this.run(workflowId).checkpoints(runId);
  }

  /** Same as `agents.run(workflowId).rewind(options)`. */
  rewind(workflowId: string, options: RewindOptions): Promise<{ runId: string; checkpoint: Checkpoint; corrections: CorrectionDelivery }> {
    return this.run(workflowId).rewind(options);
  }

  /** Same as `agents.run(workflowId).rewinds(runId)`. */
  rewinds(workflowId: string, runId?: string): Promise<RunRewind[]> {
    return this.run(workflowId).rewinds(runId);
  }

  /** Same as `agents.run(workflowId).exportHistory(runId)`. */
  exportHistory(workflowId: string, runId?: string): Promise<string> {
    return this.run(workflowId).exportHistory(runId);
  }

  /** Same as `agents.run(workflowId).exportExecutions(runId)`. */
  exportExecutions(workflowId: string, runId?: string): Promise<ExportedExecution[]> {
    return this.run(workflowId).exportExecutions(runId);
  }

  /** Same as `agents.run(workflowId).signal(name, payload)`. */
  signal(workflowId: string, name: RunOperationName, payload?: unknown): Promise<void> {
    return this.run(workflowId).signal(name, payload);
  }
}
