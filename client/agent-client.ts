import { Client, QueryNotRegisteredError, ServiceError, WorkflowExecutionAlreadyStartedError, WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowClientInterceptor, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, type DataConverter, type UpdateDefinition } from '@temporalio/common';
import {
  agentNameSearchAttribute,
  agentStatusSearchAttribute,
  agentRunWorkflowType,
  agentRunStartAttributes,
  agentSessionWorkflowType,
  closeSessionSignal,
  sendMessageUpdate,
  sessionInputSchema,
  sessionQuery,
  type SessionInput,
  type SessionMessage,
  type SessionReport,
  type SessionRunRecord,
  describeIssues,
  pendingInputsQuery,
  type AwaitAnswer,
  type CallDecision,
  type PendingInputs,
  waitForEventsUpdate,
  type BudgetChange,
  type CostReport,
  type Intervention,
  type InterventionReceipt,
  type KillRequest,
  type PauseRequest,
  type PauseResult,
  eventPageSchema,
  eventsQuery,
  runInputSchema,
  runResultSchema,
  runStatusSchema,
  statusQuery,
  type EventPage,
  type RunEvent,
  type RunInput,
  type RunResult,
  type RunStatus,
  type RunStatusReport,
} from '../contracts';
import { jsonDepthExceeds } from '../contracts/json';
import { runOperationMessages, type RunOperationAnswer, type RunOperationName, type RunOperationRequest } from '../contracts/operations';
import { isTerminalRunStatus } from '../contracts/run';
import { temporalConfigFromEnv, type TemporalConfig } from '../config/temporal';
import { dataConverterFromEnv, EncryptedPayloadGuard } from '../config/encryption';
import { tracingFromEnv } from '../config/telemetry-env';
import type { AgentTracingOptions } from '../config/tracing';
import { checkpointsOf, rewindRun, type Checkpoint, type CorrectionDelivery, type RewindOptions } from '../history/checkpoints';
import { fetchDecodedHistory } from '../history/decoded-history';
import { runRewinds, type RunRewind } from '../history/rewinds';
import { EventLogCursor } from './event-log-cursor';
import { PollPacing } from './poll-pacing';
import { sessionRunState, untilSessionRunStarts } from './session-run-start';
import { sendUntilProcessed } from './unprocessed-update';
import { ServerUnreachableError } from './unavailable';
import {
  decideInTree,
  followTree,
  hasPendingInputs,
  pendingInputsTree,
  recordedRunTree,
  runTree,
  subRunsWaitingOnCall,
  type RecordedRunTree,
  type RunPendingInputs,
  type RunTree,
  type TreeEvent,
  type TreePendingInputs,
} from './run-tree';
import { exportExecutions, exportHistory, type ExportedExecution } from './history';
import { historyEntries, historySummary, type HistoryEntry, type HistoryStatus } from './history-view';
import { runWorkerVersion, type RunWorkerVersion } from './worker-version';
import { noWorkerAnswered, noWorkerPolls, PresenceCache, workerPresence, type WorkerPresence } from './worker-presence';
import { requireWorkerForStart, type StartOptions } from './start-needs-worker';
import { unansweredNote } from './unanswered-note';
import { connectTo } from './connect';
import { AgentClientError, NoWorkerError, RunNotStartedError } from './errors';
import { fits, refuseNestedTooDeep } from './input-checks';
import { idReusePolicy } from '../history/id-reuse';
import { startRefusal } from './start-refusal';

export { AgentClientError, NoWorkerError, RunNotStartedError, type AgentClientErrorType } from './errors';

/**
 * Error type strings of the client; match on `type`. `rejected`: the run refused the
 * operation (its validator or handler said why); `run_ended`: the run is no longer open;
 * `unanswered`: no worker answered a query in time, or the run failed before it could register
 * its queries (read its history instead: {@link AgentClient.statusFromHistory}).
 */
/** Deepest result {@link AgentClient.result} reads: a result holds input values (64 levels at most) a few levels down. */
const maxReadableResultDepth = 128;

/** Options of the query methods. */
export interface QueryOptions {
  /**
   * Give up after this long (an AgentClientError `unanswered`), in one try. Default: three tries
   * of 5, 10 and 20 s, since a worker can lose a query of a closed run when several arrive at once.
   */
  readonly timeoutMs?: number;
}

/** Options of {@link AgentClient.pendingInputs}. */
export interface PendingInputsOptions extends QueryOptions {
  /** `false`: ask this run only (one query); its `tree` then lists at most this run. Default true. */
  readonly subAgents?: boolean;
}

/** Options of {@link AgentClient.connect}. */
export interface AgentClientConnectOptions {
  /**
   * Payload converter and codecs, e.g. `dataConverterFromEnv()` (the encryption of
   * DURABLE_AGENTS_ENCRYPTION_KEYS). Default: payloads as Temporal stores them, and a clear
   * error naming the key of an encrypted one.
   */
  readonly dataConverter?: DataConverter;
  /** OpenTelemetry tracing of the client's calls (`tracingFromEnv()` reads DURABLE_AGENTS_TRACING). Absent or `null`: none. */
  readonly tracing?: AgentTracingOptions | null;
}

/**
 * The client options the environment sets: the data converter of DURABLE_AGENTS_ENCRYPTION_KEYS
 * (/ _FILE) and the tracing of DURABLE_AGENTS_TRACING, for `AgentClient.connect(config, …)`
 * in a process whose configuration lives there (`AgentClient.fromEnv()` takes the config from
 * there too).
 *
 * @throws Error naming the variable whose value is malformed.
 * @example
 * const agents = await AgentClient.connect({ ...temporalConfigFromEnv(), taskQueue: 'notes' }, clientOptionsFromEnv());
 */
export function clientOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): AgentClientConnectOptions {
  const tracing = tracingFromEnv(env);
  return { dataConverter: dataConverterFromEnv(env), ...(tracing ? { tracing } : {}) };
}

/** The client interceptors of `options`' tracing, with the OpenTelemetry SDK loaded now. */
async function tracingInterceptors(options: AgentTracingOptions): Promise<WorkflowClientInterceptor[]> {
  const { resolveTracing, tracingClientInterceptors } = await import('../config/tracing');
  return tracingClientInterceptors(resolveTracing(options));
}

/** gRPC status DEADLINE_EXCEEDED: a query no worker answered before its deadline. */
const grpcDeadlineExceeded = 4;
/** gRPC status CANCELLED: how a call cut by a client-side deadline may also end. */
const grpcCancelled = 1;
/** gRPC status FAILED_PRECONDITION: a query of a run whose task queue no worker polled lately. */
const grpcFailedPrecondition = 9;
/**
 * The deadlines of a query's tries when the caller sets none. A query changes nothing, so one
 * that no worker answered is asked again. A worker answers a query of a closed run by replaying
 * the run's history, and of several such queries at once it can lose one (seen with Temporal's
 * TypeScript SDK 1.24 when all the followers of a run read its end together); the later tries wait
 * longer, for long histories.
 */
const defaultQueryTriesMs = [5_000, 10_000, 20_000];
/** How long an update waits for a sign of life of the run's worker (a status query) before it is refused. */
export const workerProbeMs = 5_000;

/**
 * Failure type of an update whose execution closed before the update completed: a reset (rewind)
 * or continue-as-new replaced the execution, or the run ended.
 */
const acceptedUpdateCompletedWorkflow = 'AcceptedUpdateCompletedWorkflow';

const terminalStatuses = new Set(['completed', 'failed', 'terminated']);

/**
 * Typed client of agent runs: start, result, status, events, follow.
 *
 * @example
 * const agents = await AgentClient.fromEnv();
 * const { workflowId } = await agents.start({ agent: 'watchlist', messages: [{ role: 'user', content: 'Add AAPL' }] });
 * for await (const event of agents.follow(workflowId)) console.log(event.type);
 */
export class AgentClient {
  /**
   * @param searchAttributes set AgentName at start (needs the AgentName / AgentStatus search
   *   attributes registered on the namespace) so runs can be listed by agent and status.
   */
  constructor(
    readonly client: Client,
    readonly taskQueue: string,
    readonly searchAttributes = true,
  ) {}

  /** Worker presence for reads, asked at most every 2 s per task queue (see {@link workerPresence}). */
  private presence: PresenceCache | undefined;

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
    );
  }

  /**
   * Connects as the environment says: the Temporal connection of the TEMPORAL_* variables (and
   * the Temporal config file's profile, see `temporalConfigFromEnv`), the encryption keys of
   * DURABLE_AGENTS_ENCRYPTION_KEYS and the tracing of DURABLE_AGENTS_TRACING
   * ({@link clientOptionsFromEnv}).
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
  async start(input: RunInput, options: StartOptions = {}): Promise<{ workflowId: string; runId: string }> {
    refuseNestedTooDeep('run input', input);
    const parsed = runInputSchema.safeParse(input);
    if (!parsed.success) throw new AgentClientError('invalid_input', `invalid run input: ${describeIssues(parsed.error)}`);
    fits('the run input', input);
    if (!options.allowNoWorker) await requireWorkerForStart(this.client, this.taskQueue);
    const workflowId = options.workflowId ?? `run-${parsed.data.agent}-${Math.random().toString(36).slice(2, 10)}`;
    const handle = await this.client.workflow
      .start(agentRunWorkflowType, {
        taskQueue: this.taskQueue,
        workflowId,
        args: [input],
        ...agentRunStartAttributes(parsed.data, this.searchAttributes),
        ...idReusePolicy(options.reuseClosedId),
      })
      .catch((err: unknown) => startRefusal(this.client, workflowId, err));
    return { workflowId, runId: handle.firstExecutionRunId };
  }

  /**
   * Waits until a worker has run the first workflow task of a run just started, so a caller
   * learns at once when the run could not start: an agent not in the worker's bundle, planner
   * options the agent refuses, an invalid input the worker saw. Returns `running` (or `ended`
   * for a run that already finished) once the first task completed, and `not_picked_up` when
   * no worker took it within `timeoutMs` (the run stays queued).
   *
   * @throws AgentClientError `start_failed` with the run's own reason when it failed at once.
   */
  async confirmStarted(workflowId: string, timeoutMs = 10_000): Promise<'running' | 'ended' | 'not_picked_up'> {
    const handle = this.handle(workflowId);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const description = await this.guard(workflowId, () => handle.describe());
      const status = description.status.name;
      if (status === 'FAILED') {
        const reason = await handle.result().then(
          () => 'failed',
          (err: unknown) => (err instanceof WorkflowFailedError && err.cause ? err.cause.message : err instanceof Error ? err.message : String(err)),
        );
        throw new AgentClientError('start_failed', `run ${workflowId} failed at start: ${reason}`);
      }
      if (status !== 'RUNNING') return 'ended';
      // Started, scheduled, started and completed: the first workflow task is done.
      if ((description.historyLength ?? 0) >= 4) return 'running';
      if (Date.now() >= deadline) return 'not_picked_up';
      await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    }
  }

  private handle(workflowId: string, runId?: string): WorkflowHandle {
    return this.client.workflow.getHandle(workflowId, runId);
  }

  private async guard<T>(workflowId: string, fn: () => Promise<T>, attempt = 1): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) {
        // Updates to a closed run also come back as "not found"; tell the two apart.
        const closed = await this.handle(workflowId)
          .describe()
          .then((d) => d.status.name)
          .catch(() => undefined);
        if (closed && err.runId) throw new AgentClientError('run_not_found', `run ${workflowId} has no execution with run id ${err.runId}`);
        // A running run the server briefly could not route a request to (seen for updates under
        // load, as a run moved between worker versions): the request was not applied, so try again.
        if (closed === 'RUNNING' && attempt < 3) {
          await new Promise((r) => setTimeout(r, 500 * attempt));
          return this.guard(workflowId, fn, attempt + 1);
        }
        if (closed === 'RUNNING') throw new AgentClientError('unanswered', `run ${workflowId} is running, but the server did not find it for this request (3 tries); try again`);
        if (closed) throw new AgentClientError('run_ended', `run ${workflowId} has ended (${closed.toLowerCase()})`);
        const sessionRun = await sessionRunState(this.client, workflowId);
        // A session's run that started while this asked: ask it again.
        if (sessionRun === 'started' && attempt < 3) return this.guard(workflowId, fn, attempt + 1);
        if (sessionRun !== 'none') throw new RunNotStartedError(workflowId);
        throw new AgentClientError('run_not_found', `no run with id ${workflowId}`);
      }
      if (err instanceof QueryNotRegisteredError) {
        // The SDK's text ("did not register a handler for …") names no reason; the history does.
        throw new AgentClientError('unanswered', `run ${workflowId} cannot answer queries (it ended before it registered them)`);
      }
      if (err instanceof ServiceError && (err.cause as { code?: unknown } | undefined)?.code === grpcDeadlineExceeded) {
        throw new AgentClientError('unanswered', `no worker answered a query of run ${workflowId} in time: ${await unansweredNote(this.client, workflowId)}`);
      }
      if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && err.cause.type === acceptedUpdateCompletedWorkflow) {
        throw new AgentClientError(
          'run_ended',
          `the execution of run ${workflowId} that took the request closed before answering it (the run was rewound, continued as new or ended); see its status and try again`,
        );
      }
      if (err instanceof WorkflowUpdateFailedError) {
        const cause = err.cause;
        const type = cause instanceof ApplicationFailure && cause.type === 'run_ended' ? 'run_ended' : 'rejected';
        throw new AgentClientError(type, cause?.message ?? err.message);
      }
      if (err instanceof Error && /workflow execution already completed/i.test(err.message)) {
        throw new AgentClientError('run_ended', `run ${workflowId} has ended`);
      }
      throw err;
    }
  }

  /**
   * Waits for the run's result: of its latest execution, or of the execution `runId` (and those it
   * continued as new into), e.g. a closed run whose id a later start reused. Throws the workflow
   * failure when the run failed.
   */
  async result(workflowId: string, runId?: string): Promise<RunResult> {
    // A session answers a message with its run's id before the run starts (queued, or a moment
    // before its child workflow exists): wait for that run to begin.
    await untilSessionRunStarts(this.client, workflowId);
    return this.guard(workflowId, async () => {
      const raw: unknown = await this.handle(workflowId, runId).result();
      // The schemas recurse: a value thousands of levels deep would overflow the stack.
      if (jsonDepthExceeds(raw, maxReadableResultDepth)) {
        throw new AgentClientError('unreadable', `run ${workflowId}'s result nests deeper than ${maxReadableResultDepth} levels; read its history instead (agentctl history export)`);
      }
      return runResultSchema.parse(raw);
    });
  }

  /**
   * Runs a query within `timeoutMs`, or else within {@link defaultQueryTriesMs}. A call cut by
   * its deadline comes back as DEADLINE_EXCEEDED or CANCELLED; both mean no worker answered in
   * time.
   */
  private async within<T>(workflowId: string, timeoutMs: number | undefined, fn: () => Promise<T>): Promise<T> {
    const tries = timeoutMs === undefined ? defaultQueryTriesMs : [timeoutMs];
    for (let attempt = 0; ; attempt++) {
      const deadline = Date.now() + (tries[attempt] as number);
      try {
        return await this.client.connection.withDeadline(deadline, fn);
      } catch (err) {
        const code = err instanceof ServiceError ? (err.cause as { code?: unknown } | undefined)?.code : undefined;
        // What the server answers a query once no worker has polled the run's task queue for a
        // while (a crashed worker): it does not wait for one.
        if (code === grpcFailedPrecondition) {
          throw new AgentClientError('unanswered', `no worker answered a query of run ${workflowId}: ${await unansweredNote(this.client, workflowId)}`);
        }
        if (!((code === grpcDeadlineExceeded || code === grpcCancelled) && Date.now() >= deadline)) throw err;
        // A query also times out when the server itself is away: ask it something no worker answers.
        await this.requireServer(err);
        if (attempt + 1 < tries.length) continue;
        const waited = tries.reduce((sum, ms) => sum + ms, 0);
        const how = tries.length > 1 ? `in ${tries.length} tries over ${waited / 1000} s` : `within ${waited} ms`;
        throw new AgentClientError('unanswered', `no worker answered a query of run ${workflowId} ${how}: ${await unansweredNote(this.client, workflowId)}`);
      }
    }
  }

  /** @throws ServerUnreachableError when the Temporal server does not answer within 2 s. */
  private async requireServer(cause: unknown): Promise<void> {
    try {
      await this.client.connection.withDeadline(Date.now() + 2_000, () => this.client.workflowService.getSystemInfo({}));
    } catch {
      throw new ServerUnreachableError(`the Temporal server did not answer within 2 s`, { cause });
    }
  }

  /**
   * Current status, iteration, pending calls and budget (the status query, answered by a worker).
   *
   * @throws AgentClientError `unanswered` when no worker answered within `timeoutMs`.
   */
  async status(workflowId: string, options: QueryOptions = {}): Promise<RunStatusReport> {
    return this.withChildStatuses(await this.queryStatus(workflowId, options));
  }

  /** The status query as the run answers it (its children as the parent recorded them). */
  private queryStatus(workflowId: string, options: QueryOptions): Promise<RunStatusReport> {
    return this.guard(workflowId, () => this.within(workflowId, options.timeoutMs, () => this.handle(workflowId).query(statusQuery)));
  }

  /**
   * The report with each running sub-agent run's own status (its AgentStatus, read from the
   * server, no worker needed): the parent only knows that the child runs, while a human may be
   * what it waits for. A child without the attribute (runs before 0.14.0) stays `running`.
   */
  private async withChildStatuses(report: RunStatusReport): Promise<RunStatusReport> {
    const running = (report.children ?? []).filter((c) => c.status === 'running');
    if (running.length === 0) return report;
    const own = new Map<string, RunStatus>();
    await Promise.all(
      running.map(async (child) => {
        const reported = await this.client.workflow
          .getHandle(child.workflowId)
          .describe()
          .then((d) => (d.status.name === 'RUNNING' ? d.typedSearchAttributes.get(agentStatusSearchAttribute) : undefined), () => undefined);
        const parsed = runStatusSchema.safeParse(reported);
        if (parsed.success) own.set(child.workflowId, parsed.data);
      }),
    );
    return { ...report, children: (report.children ?? []).map((c) => ({ ...c, status: own.get(c.workflowId) ?? c.status })) };
  }

  /**
   * Events with seq > afterSeq (the events query, answered by a worker).
   *
   * @throws AgentClientError `unanswered` when no worker answered within `timeoutMs`.
   */
  async events(workflowId: string, afterSeq = 0, limit = 200, options: QueryOptions = {}): Promise<EventPage> {
    return this.guard(workflowId, () =>
      this.within(workflowId, options.timeoutMs, async () => eventPageSchema.parse(await this.handle(workflowId).query(eventsQuery, { afterSeq, limit }))),
    );
  }

  /**
   * What the run's history and memo say of it, with no worker involved: its agent, status as
   * last reported, turns and calls so far, and its failure or result once it has ended.
   */
  async statusFromHistory(workflowId: string): Promise<HistoryStatus> {
    const handle = this.handle(workflowId);
    return this.guard(workflowId, async () => {
      const description = await handle.describe();
      const { events } = await fetchDecodedHistory(this.client, workflowId, description.runId);
      const agent = description.typedSearchAttributes.get(agentNameSearchAttribute) ?? description.memo?.agent;
      const reported = description.typedSearchAttributes.get(agentStatusSearchAttribute);
      const workflowStatus = description.status.name;
      return {
        source: 'history' as const,
        workflowId,
        runId: description.runId,
        agent: typeof agent === 'string' ? agent : null,
        // The run's own status only while it runs: once closed, Temporal's status is the truth.
        status: workflowStatus === 'RUNNING' && reported ? reported : workflowStatus.toLowerCase(),
        workflowStatus,
        historyLength: description.historyLength,
        startTime: description.startTime.toISOString(),
        closeTime: description.closeTime?.toISOString() ?? null,
        workerVersion: runWorkerVersion(description),
        ...historySummary(events ?? []),
      };
    });
  }

  /**
   * The worker version (Worker Deployment and build id) the run's latest execution is on, and
   * whether it is pinned to it; all null for a run of unversioned workers. Needs no worker.
   *
   * @example
   * declare const agents: AgentClient, workflowId: string;
   * const v = await agents.workerVersion(workflowId); // { deploymentName: 'agents', buildId: 'v1', behavior: 'PINNED', override: null }
   */
  async workerVersion(workflowId: string): Promise<RunWorkerVersion> {
    return this.guard(workflowId, async () => runWorkerVersion(await this.handle(workflowId).describe()));
  }

  /** The steps of the run's latest execution as its Temporal history records them. */
  async historyOf(workflowId: string): Promise<HistoryEntry[]> {
    return this.guard(workflowId, async () => historyEntries((await fetchDecodedHistory(this.client, workflowId)).events ?? []));
  }

  /**
   * Waits until events after `afterSeq` exist (long poll through an update), the run ends, or
   * `timeoutMs` passes. Falls back to the events query once the run has closed.
   */
  async waitForEvents(workflowId: string, afterSeq: number, timeoutMs = 30_000): Promise<EventPage> {
    try {
      return await this.longPoll(workflowId, afterSeq, timeoutMs);
    } catch (err) {
      if (err instanceof AgentClientError && err.type === 'run_ended') return this.events(workflowId, afterSeq);
      throw err;
    }
  }

  private async longPoll(workflowId: string, afterSeq: number, timeoutMs: number): Promise<EventPage> {
    return this.guard(workflowId, async () =>
      eventPageSchema.parse(await this.handle(workflowId).executeUpdate(waitForEventsUpdate, { args: [{ afterSeq, timeoutMs }] })),
    );
  }

  /** Whether the run's execution is closed, whatever its event log last said. */
  private async isClosed(workflowId: string): Promise<boolean> {
    return (await this.guard(workflowId, () => this.handle(workflowId).describe())).status.name !== 'RUNNING';
  }

  /**
   * Yields every event from `afterSeq` on, until the run ends. Reconnect by passing the last
   * seq seen. Reads only the events query, which adds nothing to the run's history: soon again
   * after news, then less often while the run is quiet (up to `pollMs`, default 1 s; see
   * PollPacing). `mode: 'long-poll'` waits on the `waitForEvents` update instead: no wait
   * between an event and its delivery, but every wait writes to the run's history and counts
   * toward Temporal's limit of updates per execution, so a run watched that way for long can no
   * longer take the operators' updates; prefer the default.
   *
   * A session's run that has not started yet (`sendMessage` answers it before it starts, and it
   * may be queued behind another) is waited for, as {@link result} waits.
   *
   * A rewind replaces the events after its turn under the same seqs (the log's epoch changes).
   * The follower notices, calls `onRewind` with the first replaced seq, and goes on with the
   * new events from there; events before it are the same in both epochs and are not repeated.
   *
   * @throws AgentClientError `unanswered` when no worker answers the events query within
   *   `queryTimeoutMs`.
   */
  async *follow(
    workflowId: string,
    options: {
      afterSeq?: number;
      pollMs?: number;
      mode?: 'long-poll' | 'poll';
      queryTimeoutMs?: number;
      onRewind?: (rewind: { epoch: string; fromSeq: number }) => void;
    } = {},
  ): AsyncGenerator<RunEvent> {
    // A session's run, followed right after sendMessage, may not have started yet.
    await untilSessionRunStarts(this.client, workflowId);
    let afterSeq = options.afterSeq ?? 0;
    const longPoll = options.mode === 'long-poll';
    const pacing = new PollPacing({ maxMs: options.pollMs ?? 1_000 });
    const queryOptions = options.queryTimeoutMs !== undefined ? { timeoutMs: options.queryTimeoutMs } : {};
    const read = (after: number, limit: number): Promise<EventPage> => this.events(workflowId, after, limit, queryOptions);
    const cursor = new EventLogCursor();
    let closed = false;
    for (;;) {
      const page = await read(afterSeq, 200);
      if (cursor.isRewound(page)) {
        const fromSeq = await cursor.rewind(page, read, options.afterSeq ?? 0, afterSeq);
        options.onRewind?.({ epoch: page.epoch, fromSeq });
        afterSeq = fromSeq - 1;
        closed = false;
        continue;
      }
      cursor.accept(page);
      for (const event of page.events) {
        cursor.passedOn(event);
        yield event;
      }
      afterSeq = page.nextAfterSeq;
      if (page.events.length > 0) {
        pacing.news();
        continue;
      }
      // A run that failed (a bug in agent code, an agent the worker lacks) ends without a
      // terminal event in its log: the closed execution ends the follow, after a last read.
      if (terminalStatuses.has(page.status) || closed) return;
      if (longPoll) {
        closed = await this.longPoll(workflowId, afterSeq, 30_000).then(
          () => false,
          (err: unknown) => {
            // The execution waited on closed: the run has ended, or goes on in a new execution
            // of the same workflow id (a rewind, a continue-as-new), which the next read reaches.
            if (err instanceof AgentClientError && err.type === 'run_ended') return this.isClosed(workflowId);
            throw err;
          },
        );
      } else {
        await pacing.wait();
        // Asked only now and then once the run is quiet: a closed run says so in its events
        // (terminal status) unless it failed by a bug in agent code.
        closed = pacing.dueForClosedCheck ? await this.isClosed(workflowId) : false;
      }
    }
  }

  /**
   * Whether workers poll the task queue of the run's latest execution, and when one last did
   * (the server's DescribeTaskQueue, at most 2 s old: reads ask it once per task queue that often). Needs no worker.
   */
  async workerPresence(workflowId: string): Promise<WorkerPresence> {
    this.presence ??= new PresenceCache(this.client);
    return this.presence.ofRun(workflowId, async () => (await this.guard(workflowId, () => this.handle(workflowId).describe())).taskQueue);
  }

  /**
   * Refuses an update no worker would take now. Sent anyway, the server holds an update until a
   * worker takes it: the caller waits with no answer, and the update may apply minutes later.
   * A queue no worker polled lately says so at once; a worker that crashed a moment ago still
   * looks polled, so the run is asked for its status first.
   *
   * @throws NoWorkerError naming the task queue and when a worker last polled it.
   */
  private async requireWorker(workflowId: string, probe: () => Promise<unknown>): Promise<void> {
    const description = await this.guard(workflowId, () => this.handle(workflowId).describe());
    // A closed run: the update itself says it has ended.
    if (description.status.name !== 'RUNNING') return;
    const presence = await workerPresence(this.client, description.taskQueue);
    if (!presence.polled) throw new NoWorkerError(presence, noWorkerPolls(presence));
    try {
      await probe();
    } catch (err) {
      if (!(err instanceof AgentClientError && err.type === 'unanswered')) return;
      throw new NoWorkerError(
        presence,
        noWorkerAnswered(workflowId, presence, `within ${workerProbeMs / 1000} s`),
      );
    }
  }

  /**
   * Sends an update once a worker is there to take it ({@link requireWorker}); `probe` asks the
   * workflow something it answers at once (default: an agent run's status).
   */
  private async update<T>(workflowId: string, send: () => Promise<T>, probe: () => Promise<unknown> = () => this.queryStatus(workflowId, { timeoutMs: workerProbeMs })): Promise<T> {
    await this.requireWorker(workflowId, probe);
    return this.guard(workflowId, () => sendUntilProcessed(send));
  }

  /** Sends an operation of the operations table (contracts/operations.ts) as its validated update, and answers the run's answer. */
  private async operate<N extends RunOperationName>(workflowId: string, name: N, request: RunOperationRequest<N>): Promise<RunOperationAnswer<N>> {
    const update = runOperationMessages[name].update as UpdateDefinition<RunOperationAnswer<N>, [unknown]>;
    return this.update(workflowId, () => this.handle(workflowId).executeUpdate(update, { args: [fits(`the ${update.name} update`, request)] }));
  }

  /**
   * Pauses at the next safe point; resolves once paused (update `pauseRun`).
   *
   * @throws AgentClientError `rejected` (e.g. `pause_timeout`) or `run_ended`; NoWorkerError
   *   when no worker would take the update now (send the `pause` signal to queue it instead).
   *   The same holds for every update of this client (resume, intervene, setBudget, kill,
   *   answer, decide): none waits silently for a worker.
   */
  async pause(workflowId: string, request: PauseRequest = {}): Promise<PauseResult> {
    return this.operate(workflowId, 'pause', request);
  }

  /** Resumes a paused run; rejected when it is not paused. Answers the new status. */
  async resume(workflowId: string, reason?: string): Promise<RunStatusReport> {
    return this.operate(workflowId, 'resume', reason ? { reason } : {});
  }

  /** Queues or applies an intervention, validated by the run. */
  async intervene(workflowId: string, intervention: Intervention): Promise<InterventionReceipt> {
    return this.operate(workflowId, 'intervene', intervention);
  }

  /** Changes caps while the run runs; answers the new cost report. */
  async setBudget(workflowId: string, change: BudgetChange): Promise<CostReport> {
    return this.operate(workflowId, 'setBudget', change);
  }

  /** Ends the run now, cancelling in-flight calls; resolves once it has ended. */
  async kill(workflowId: string, request: KillRequest = {}): Promise<RunStatusReport> {
    return this.operate(workflowId, 'kill', request);
  }

  /**
   * Calls of the run waiting for confirmation and its open await barrier, and in `tree` what the
   * run and its sub-agent runs wait on, as one list with each run's path (a status query and a
   * pendingInputs query per open run of the tree).
   *
   * @throws AgentClientError `unanswered` when no worker answered within `timeoutMs`.
   * @example
   * declare const agents: AgentClient, workflowId: string;
   * const { tree } = await agents.pendingInputs(workflowId);
   * for (const run of tree) console.log(run.path.join('/') || '(this run)', run.approvals.map((a) => a.toolCallId));
   */
  async pendingInputs(workflowId: string, options: PendingInputsOptions = {}): Promise<RunPendingInputs> {
    if (options.subAgents === false) {
      const own = await this.guard(workflowId, () => this.within(workflowId, options.timeoutMs, () => this.handle(workflowId).query(pendingInputsQuery)));
      return { ...own, tree: hasPendingInputs(own) ? [{ workflowId, path: [], ...own }] : [] };
    }
    const tree = await pendingInputsTree(this, workflowId, undefined, options);
    const own = tree.find((p) => p.path.length === 0);
    return { approvals: own?.approvals ?? [], ...(own?.await ? { await: own.await } : {}), tree };
  }

  /**
   * Answers one await item; the run validates it (options exist, required fields given,
   * results match the tool's schema).
   *
   * @throws AgentClientError `rejected` naming what is wrong.
   */
  async answer(workflowId: string, answer: AwaitAnswer): Promise<PendingInputs> {
    return this.operate(workflowId, 'answer', answer);
  }

  /**
   * Approves, rejects, edits or replaces a call waiting for confirmation.
   *
   * @throws AgentClientError `rejected` with the run's reason; when the call waits in a sub-agent
   *   run instead, the message names that run's path (decide it with {@link decideInTree}).
   */
  async decide(workflowId: string, decision: CallDecision): Promise<PendingInputs> {
    try {
      return await this.operate(workflowId, 'decide', decision);
    } catch (err) {
      if (!(err instanceof AgentClientError) || err.type !== 'rejected') throw err;
      const below = await subRunsWaitingOnCall(this, workflowId, decision.toolCallId).catch(() => []);
      if (below.length === 0) throw err;
      const where = below.map((p) => `at path ${p.path.join('/')} (${p.workflowId}): decide it there (--path ${p.path.join('/')})`).join('; or ');
      throw new AgentClientError('rejected', `${err.message}; ${decision.toolCallId} waits in the sub-agent run ${where}`);
    }
  }


  /** The run and the sub-agent runs its agent tools started, recursively. */
  async tree(workflowId: string, options: QueryOptions = {}): Promise<RunTree> {
    return runTree(this, workflowId, options);
  }

  /** The run and its sub-agent runs as their histories record them (no worker needed). */
  async treeFromHistory(workflowId: string): Promise<RecordedRunTree> {
    return recordedRunTree(this, workflowId);
  }

  /** What the runs of a tree wait on from humans, each with its run's workflow id and path (the `tree` of {@link pendingInputs}). */
  async pendingInputsTree(workflowId: string, options: QueryOptions = {}): Promise<TreePendingInputs[]> {
    return pendingInputsTree(this, workflowId, undefined, options);
  }

  /** Decides a call of the run at `path` (call ids from this run down): routed to the run that owns it. */
  async decideInTree(workflowId: string, path: readonly string[], decision: CallDecision): Promise<PendingInputs> {
    return decideInTree(this, workflowId, path, decision);
  }

  /** Follows a run and every sub-agent run it starts, each event with its run's path. */
  followTree(workflowId: string, options: { mode?: 'long-poll' | 'poll'; pollMs?: number } = {}): AsyncGenerator<TreeEvent> {
    return followTree(this, workflowId, options);
  }

  /** Turn boundaries of the run's latest execution, for rewinds. */
  async checkpoints(workflowId: string, runId?: string): Promise<Checkpoint[]> {
    return this.guard(workflowId, async () => checkpointsOf((await fetchDecodedHistory(this.client, workflowId, runId)).events ?? []));
  }

  /**
   * Rewinds a run to the boundary after `toTurn` completed turns (a Temporal reset); the run
   * continues from there under the same workflow id with a new run id. `with` applies
   * corrections at that point, making the rewind a fork with a fix.
   *
   * @throws CheckpointError `no_such_turn` / `invalid_input`; AgentClientError `run_not_found`.
   */
  async rewind(workflowId: string, options: RewindOptions): Promise<{ runId: string; checkpoint: Checkpoint; corrections: CorrectionDelivery }> {
    // Sub-agent runs of the execution being replaced: a reset leaves them running, and the
    // rewound run starts its own (their ids carry the new log epoch).
    const children = options.runId ? [] : await this.queryStatus(workflowId, { timeoutMs: 5_000 }).then((s) => (s.children ?? []).filter((c) => !isTerminalRunStatus(c.status)), () => []);
    const rewound = await this.guard(workflowId, () => rewindRun(this.client, workflowId, options));
    // Cancelled, they end like a kill: their own calls are answered.
    await Promise.all(children.map((c) => this.client.workflow.getHandle(c.workflowId).cancel().catch(() => undefined)));
    return rewound;
  }

  /**
   * Where the run was rewound, oldest first: the turn it went back to, when, the reason and the
   * corrections, as the reset executions' histories record them (the latest execution, or
   * `runId`, and the executions it continued from). Reads histories only: free for the run, and
   * no worker is needed. Events after each rewind's turn replaced those of `replacedRunId`.
   *
   * @throws AgentClientError `run_not_found`.
   */
  async rewinds(workflowId: string, runId?: string): Promise<RunRewind[]> {
    return this.guard(workflowId, () => runRewinds(this.client, workflowId, runId));
  }

  /** The run's history as JSON (latest execution unless `runId` is given). */
  async exportHistory(workflowId: string, runId?: string): Promise<string> {
    return this.guard(workflowId, () => exportHistory(this.client, workflowId, runId));
  }

  /**
   * Every execution of the run up to `runId` (default: the latest), first to last, one history
   * each: a run that continued as new has several. What `evaluateRuns` reads as one run.
   *
   * @throws AgentClientError `run_not_found`.
   */
  async exportExecutions(workflowId: string, runId?: string): Promise<ExportedExecution[]> {
    return this.guard(workflowId, () => exportExecutions(this.client, workflowId, runId));
  }

  /** Workflow id of the session with this id. */
  static sessionWorkflowId(sessionId: string): string {
    return `session-${sessionId}`;
  }

  /**
   * Opens a session (a conversation of many runs) unless it is already open. Later runs of
   * the session start from the session state and history the earlier ones left.
   *
   * @returns the session's workflow id.
   * @throws AgentClientError `invalid_input` naming the bad field.
   */
  async openSession(sessionId: string, input: SessionInput): Promise<string> {
    refuseNestedTooDeep('session input', input);
    const parsed = sessionInputSchema.safeParse(input);
    if (!parsed.success) throw new AgentClientError('invalid_input', `invalid session input: ${describeIssues(parsed.error)}`);
    fits('the session input', input);
    const workflowId = AgentClient.sessionWorkflowId(sessionId);
    try {
      await this.client.workflow.start(agentSessionWorkflowType, {
        taskQueue: this.taskQueue,
        workflowId,
        args: [input],
        memo: { agent: input.agent },
        // The session's runs take AgentName from it (workflows/calls/child-run-labels.ts).
        ...(this.searchAttributes ? { typedSearchAttributes: [{ key: agentNameSearchAttribute, value: input.agent }] } : {}),
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    }
    return workflowId;
  }

  /**
   * Sends the next user message of a session; answers the run that will handle it.
   *
   * @throws NoWorkerError when no worker would take it now (nothing is sent).
   */
  async sendMessage(sessionId: string, message: SessionMessage): Promise<SessionRunRecord> {
    const workflowId = AgentClient.sessionWorkflowId(sessionId);
    const probe = () => this.guard(workflowId, () => this.within(workflowId, workerProbeMs, () => this.handle(workflowId).query(sessionQuery)));
    return this.update(workflowId, () => this.handle(workflowId).executeUpdate(sendMessageUpdate, { args: [fits('the sendMessage update', message)] }), probe);
  }

  /** The session's state, history size and runs. */
  async session(sessionId: string): Promise<SessionReport> {
    const workflowId = AgentClient.sessionWorkflowId(sessionId);
    return this.guard(workflowId, () => this.handle(workflowId).query(sessionQuery));
  }

  /** Closes a session after its queued runs. */
  async closeSession(sessionId: string): Promise<void> {
    const workflowId = AgentClient.sessionWorkflowId(sessionId);
    await this.guard(workflowId, () => this.handle(workflowId).signal(closeSessionSignal));
  }

  /**
   * Sends a control signal (fire-and-forget; bad payloads become `signal_rejected` events).
   * The same as `temporal workflow signal --name <name> --input '<json>'`.
   */
  async signal(workflowId: string, name: RunOperationName, payload: unknown = {}): Promise<void> {
    const definition = runOperationMessages[name]?.signal;
    if (!definition) throw new AgentClientError('invalid_input', `no operation ${JSON.stringify(name)}; operations: ${Object.keys(runOperationMessages).join(', ')}`);
    fits(`the ${name} signal`, payload);
    await this.guard(workflowId, () => this.handle(workflowId).signal(definition, payload));
  }

}
