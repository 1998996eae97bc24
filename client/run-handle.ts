import { eventPageSchema, eventsQuery, pendingInputsQuery, runResultSchema, statusQuery, waitForEventsUpdate } from '../contracts';
import type { AwaitAnswer, BudgetChange, CallDecision, CostReport, EventPage, Intervention, InterventionReceipt, KillRequest, PauseRequest, PauseResult, PendingInputs, ResumeRequest, RunEvent, RunResult, RunStatusReport } from '../contracts';
import { jsonDepthExceeds } from '../contracts/json';
import { runOperationMessages, type RunOperationAnswer, type RunOperationName, type RunOperationRequest } from '../contracts/operations';
import { isTerminalRunStatus } from '../contracts/run';
import { checkpointsOf, rewindRun, type Checkpoint, type CorrectionDelivery, type RewindOptions } from '../history/checkpoints';
import { fetchDecodedHistory } from '../history/decoded-history';
import { runRewinds, type RunRewind } from '../history/rewinds';
import { withChildStatuses } from './child-statuses';
import { AgentClientError } from './errors';
import { exportExecutions, exportHistory, type ExportedExecution } from './history';
import { statusFromHistory } from './history-status';
import { historyEntries, type HistoryEntry, type HistoryStatus } from './history-view';
import { fits } from './input-checks';
import type { PendingInputsOptions, QueryOptions } from './query-options';
import { workerProbeMs, type RunCalls } from './run-calls';
import { followRun, type FollowOptions } from './run-follow';
import { hasPendingInputs, pendingInputsTree, rethrowWithSubRunHint, type RunPendingInputs } from './run-tree';
import { untilSessionRunStarts } from './session-run-start';
import { confirmStarted } from './start-confirm';
import type { TreeRuns } from './tree-runs';
import { runWorkerVersion, type RunWorkerVersion } from './worker-version';
import type { WorkerPresence } from './worker-presence';

/** Deepest result {@link RunHandle.result} reads: a result holds input values (64 levels at most) a few levels down. */
const maxReadableResultDepth = 128;

/**
 * A method per row of the operations table (contracts/operations.ts), its payload in and the run's
 * answer out: a {@link RunHandle} has every one (a new row without its method does not compile).
 */
export type RunOperations = { readonly [N in RunOperationName]: (request: RunOperationRequest<N>) => Promise<RunOperationAnswer<N>> };

/**
 * One agent run, by workflow id, as Temporal's WorkflowHandle is one workflow: what it reports
 * (status, events, history), its operations (from the table of operations: each sends its
 * validated update once a worker is there to take it, and answers the run's answer), its tree of
 * sub-agent runs and its rewinds. Getting one asks nothing of the server: `agents.run(id)`. Its
 * tree of sub-agent runs is read by the functions of the tree module over handles (`runTree`,
 * `pendingInputsTree`, `decideInTree`, `followTree`, …).
 *
 * Every operation throws AgentClientError `rejected` (the run's validator said why) or `run_ended`;
 * NoWorkerError when no worker would take the update now (send its signal with {@link signal} to
 * queue it instead); none waits silently for a worker.
 *
 * @example
 * declare const agents: AgentClient;
 * const run = agents.run('run-notes-1');
 * await run.pause({ reason: 'inspect' });
 * console.log((await run.status()).status); // 'paused'
 * await run.resume();
 * for await (const event of run.follow()) console.log(event.type);
 */
export class RunHandle implements RunOperations {
  /** @internal Handles come from `agents.run(id)`. */
  constructor(
    private readonly calls: RunCalls,
    readonly workflowId: string,
  ) {}

  /** Pauses at the next safe point; resolves once paused (`rejected` e.g. with `pause_timeout`). */
  pause(request: PauseRequest = {}): Promise<PauseResult> {
    return this.operate('pause', request);
  }

  /** Resumes a paused run (rejected when it is not paused); answers the new status. */
  resume(request: ResumeRequest = {}): Promise<RunStatusReport> {
    return this.operate('resume', request);
  }

  /** Ends the run now, cancelling in-flight calls; resolves once it has ended. */
  kill(request: KillRequest = {}): Promise<RunStatusReport> {
    return this.operate('kill', request);
  }

  /** Queues or applies an intervention, validated by the run. */
  intervene(intervention: Intervention): Promise<InterventionReceipt> {
    return this.operate('intervene', intervention);
  }

  /** Changes caps while the run runs; answers the new cost report. */
  setBudget(change: BudgetChange): Promise<CostReport> {
    return this.operate('setBudget', change);
  }

  /**
   * Replaces the run's approval rules (`{ version, rules }`, see docs/human-in-the-loop.md); the
   * calls waiting for a person are judged again under them.
   *
   * @returns what still waits for people.
   */
  setApprovalRules(rules: RunOperationRequest<'setApprovalRules'>): Promise<PendingInputs> {
    return this.operate('setApprovalRules', rules);
  }

  /**
   * Approves, rejects, edits or replaces a call waiting for confirmation.
   *
   * @throws AgentClientError `rejected` with the run's reason; when the call waits in a sub-agent
   *   run instead, the message names that run's path (decide it with {@link decideInTree}).
   */
  async decide(decision: CallDecision): Promise<PendingInputs> {
    return this.operate('decide', decision).catch((err: unknown) => rethrowWithSubRunHint(err, this.runs(), this.workflowId, decision.toolCallId));
  }

  /** Answers one await item; the run validates it (options exist, required fields given, results match the tool's schema). */
  answer(answer: AwaitAnswer): Promise<PendingInputs> {
    return this.operate('answer', answer);
  }

  /**
   * Sends an operation as its control signal (fire-and-forget; bad payloads become
   * `signal_rejected` events): the same as `temporal workflow signal --name <name> --input '<json>'`.
   *
   * @throws AgentClientError `invalid_input` for a name that is no operation.
   */
  async signal(name: RunOperationName, payload: unknown = {}): Promise<void> {
    const definition = runOperationMessages[name]?.signal;
    if (!definition) throw new AgentClientError('invalid_input', `no operation ${JSON.stringify(name)}; operations: ${Object.keys(runOperationMessages).join(', ')}`);
    fits(`the ${name} signal`, payload);
    await this.calls.guard(this.workflowId, () => this.calls.handle(this.workflowId).signal(definition, payload));
  }

  /**
   * Current status, iteration, pending calls and budget (the status query, answered by a worker),
   * each running sub-agent run with its own status.
   *
   * @throws AgentClientError `unanswered` when no worker answered within `timeoutMs`.
   */
  async status(options: QueryOptions = {}): Promise<RunStatusReport> {
    return withChildStatuses(this.calls.client, await this.queryStatus(options));
  }

  /** What the run's history and memo say of it (agent, recorded status, turns, calls, result), with no worker involved. */
  statusFromHistory(): Promise<HistoryStatus> {
    return this.calls.guard(this.workflowId, () => statusFromHistory(this.calls.client, this.workflowId));
  }

  /**
   * Events with seq > afterSeq (the events query, answered by a worker).
   *
   * @throws AgentClientError `unanswered` when no worker answered within `timeoutMs`.
   */
  events(afterSeq = 0, limit = 200, options: QueryOptions = {}): Promise<EventPage> {
    return this.calls.query(this.workflowId, options.timeoutMs, async () => eventPageSchema.parse(await this.calls.handle(this.workflowId).query(eventsQuery, { afterSeq, limit })));
  }

  /**
   * Yields every event from `afterSeq` on, until the run ends; reconnect by passing the last seq
   * seen. Reads only the events query, which adds nothing to the run's history: soon again after
   * news, then less often while the run is quiet (up to `pollMs`, default 1 s). `mode: 'long-poll'`
   * waits on the `waitForEvents` update instead: no wait between an event and its delivery, but
   * every wait writes to the run's history and counts toward Temporal's limit of updates per
   * execution; prefer the default.
   *
   * A session's run that has not started yet is waited for. A rewind replaces the events after
   * its turn under the same seqs: the follower calls `onRewind` with the first replaced seq and
   * goes on with the new events from there.
   *
   * @throws AgentClientError `unanswered` when no worker answers the events query within `queryTimeoutMs`.
   */
  async *follow(options: FollowOptions = {}): AsyncGenerator<RunEvent> {
    // A session's run, followed right after sendMessage, may not have started yet.
    await untilSessionRunStarts(this.calls.client, this.workflowId);
    yield* followRun(
      {
        events: (afterSeq, limit, queryOptions) => this.events(afterSeq, limit, queryOptions),
        longPoll: (afterSeq, timeoutMs) => this.longPoll(afterSeq, timeoutMs),
        isClosed: async () => (await this.calls.describe(this.workflowId)).status.name !== 'RUNNING',
      },
      options,
    );
  }

  /**
   * Waits until events after `afterSeq` exist (long poll through an update, which writes to the
   * run's history), the run ends, or `timeoutMs` passes. Falls back to the events query once the run has closed.
   */
  async waitForEvents(afterSeq: number, timeoutMs = 30_000): Promise<EventPage> {
    try {
      return await this.longPoll(afterSeq, timeoutMs);
    } catch (err) {
      if (err instanceof AgentClientError && err.type === 'run_ended') return this.events(afterSeq);
      throw err;
    }
  }

  /**
   * Waits for the run's result: of its latest execution, or of the execution `runId` (and those it
   * continued as new into). Throws the workflow failure when the run failed.
   *
   * @throws AgentClientError `unreadable` for a result nested too deep to read safely.
   */
  async result(runId?: string): Promise<RunResult> {
    // A session answers a message with its run's id before the run starts: wait for it to begin.
    await untilSessionRunStarts(this.calls.client, this.workflowId);
    return this.calls.guard(this.workflowId, async () => {
      const raw: unknown = await this.calls.handle(this.workflowId, runId).result();
      // The schemas recurse: a value thousands of levels deep would overflow the stack.
      if (jsonDepthExceeds(raw, maxReadableResultDepth)) {
        throw new AgentClientError('unreadable', `run ${this.workflowId}'s result nests deeper than ${maxReadableResultDepth} levels; read its history instead (agentctl history export)`);
      }
      return runResultSchema.parse(raw);
    });
  }

  /**
   * Waits until a worker has run the run's first workflow task, so a caller learns at once when
   * the run could not start. `running` (or `ended`) once it did, `not_picked_up` when no worker
   * took it within `timeoutMs` (the run stays queued).
   *
   * @throws AgentClientError `start_failed` with the run's own reason when it failed at once.
   */
  confirmStarted(timeoutMs = 10_000): Promise<'running' | 'ended' | 'not_picked_up'> {
    return confirmStarted(this.calls, this.workflowId, timeoutMs);
  }

  /** Whether workers poll the task queue of the run's latest execution, and when one last did (at most 2 s old). Needs no worker. */
  workerPresence(): Promise<WorkerPresence> {
    return this.calls.workerPresence(this.workflowId);
  }

  /** The worker version (Worker Deployment and build id) the run's latest execution is on, and whether it is pinned. Needs no worker. */
  async workerVersion(): Promise<RunWorkerVersion> {
    return runWorkerVersion(await this.calls.describe(this.workflowId));
  }

  /** The steps of the run's latest execution as its Temporal history records them. Needs no worker. */
  history(): Promise<HistoryEntry[]> {
    return this.calls.guard(this.workflowId, async () => historyEntries((await fetchDecodedHistory(this.calls.client, this.workflowId)).events ?? []));
  }

  /**
   * Calls of the run waiting for confirmation and its open await barrier, and in `tree` what the
   * run and its sub-agent runs wait on, each with its run's path (`subAgents: false`: this run only).
   *
   * @throws AgentClientError `unanswered` when no worker answered within `timeoutMs`.
   */
  async pendingInputs(options: PendingInputsOptions = {}): Promise<RunPendingInputs> {
    if (options.subAgents === false) {
      const own = await this.calls.query(this.workflowId, options.timeoutMs, () => this.calls.handle(this.workflowId).query(pendingInputsQuery));
      return { ...own, tree: hasPendingInputs(own) ? [{ workflowId: this.workflowId, path: [], ...own }] : [] };
    }
    const tree = await pendingInputsTree(this.runs(), this.workflowId, undefined, options);
    const own = tree.find((p) => p.path.length === 0);
    return { approvals: own?.approvals ?? [], ...(own?.await ? { await: own.await } : {}), tree };
  }

  /** Turn boundaries of the run's latest execution (or of `runId`), for rewinds. */
  checkpoints(runId?: string): Promise<Checkpoint[]> {
    return this.calls.guard(this.workflowId, async () => checkpointsOf((await fetchDecodedHistory(this.calls.client, this.workflowId, runId)).events ?? []));
  }

  /**
   * Rewinds the run to the boundary after `toTurn` completed turns (a Temporal reset); it goes on
   * from there under the same workflow id with a new run id. `with` applies corrections at that
   * point, making the rewind a fork with a fix. Running sub-agent runs of the replaced execution are cancelled.
   *
   * @throws CheckpointError `no_such_turn` / `invalid_input`; AgentClientError `run_not_found`.
   */
  async rewind(options: RewindOptions): Promise<{ runId: string; checkpoint: Checkpoint; corrections: CorrectionDelivery }> {
    // A reset leaves the replaced execution's sub-agent runs running; the rewound run starts its own.
    const children = options.runId ? [] : await this.queryStatus({ timeoutMs: 5_000 }).then((s) => (s.children ?? []).filter((c) => !isTerminalRunStatus(c.status)), () => []);
    const rewound = await this.calls.guard(this.workflowId, () => rewindRun(this.calls.client, this.workflowId, options));
    // Cancelled, they end like a kill: their own calls are answered.
    await Promise.all(children.map((c) => this.calls.handle(c.workflowId).cancel().catch(() => undefined)));
    return rewound;
  }

  /**
   * Where the run was rewound, oldest first, as the reset executions' histories record them (the
   * latest execution, or `runId`, and those it continued from). Reads histories only.
   *
   * @throws AgentClientError `run_not_found`.
   */
  rewinds(runId?: string): Promise<RunRewind[]> {
    return this.calls.guard(this.workflowId, () => runRewinds(this.calls.client, this.workflowId, runId));
  }

  /** The run's history as JSON (latest execution unless `runId` is given). */
  exportHistory(runId?: string): Promise<string> {
    return this.calls.guard(this.workflowId, () => exportHistory(this.calls.client, this.workflowId, runId));
  }

  /** Every execution of the run up to `runId` (default: the latest), first to last, one history each. */
  exportExecutions(runId?: string): Promise<ExportedExecution[]> {
    return this.calls.guard(this.workflowId, () => exportExecutions(this.calls.client, this.workflowId, runId));
  }

  private operate<N extends RunOperationName>(name: N, request: RunOperationRequest<N>): Promise<RunOperationAnswer<N>> {
    return this.calls.operate(this.workflowId, name, request, () => this.queryStatus({ timeoutMs: workerProbeMs }));
  }

  /** The status query as the run answers it (its children as the parent recorded them). */
  private queryStatus(options: QueryOptions): Promise<RunStatusReport> {
    return this.calls.query(this.workflowId, options.timeoutMs, () => this.calls.handle(this.workflowId).query(statusQuery));
  }

  private longPoll(afterSeq: number, timeoutMs: number): Promise<EventPage> {
    return this.calls.guard(this.workflowId, async () => eventPageSchema.parse(await this.calls.handle(this.workflowId).executeUpdate(waitForEventsUpdate, { args: [{ afterSeq, timeoutMs }] })));
  }

  /** The handles of this run's tree, for the tree functions. */
  private runs(): TreeRuns {
    const calls = this.calls;
    return { client: calls.client, run: (workflowId) => new RunHandle(calls, workflowId), workerPresence: (workflowId) => calls.workerPresence(workflowId) };
  }
}
