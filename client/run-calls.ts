import type { Client, WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import type { TenantsConfig } from '../contracts/tenant-settings';
import { runOperationMessages, type RunOperationAnswer, type RunOperationName, type RunOperationRequest } from '../contracts/operations';
import { AgentClientError, NoWorkerError, RunNotStartedError } from './errors';
import { clientErrorMessage, clientErrorRow, updateFailureType } from './error-table';
import { fits } from './input-checks';
import { queryFailure } from './query-failure';
import { sessionRunState } from './session-run-start';
import { unansweredNote } from './unanswered-note';
import { sendUntilProcessed } from './unprocessed-update';
import { ServerUnreachableError } from './unavailable';
import { noWorkerAnswered, noWorkerPolls, PresenceCache, workerPresence, type WorkerPresence } from './worker-presence';
import { StartableQueues } from './start-needs-worker';

/**
 * The deadlines of a query's tries when the caller sets none. A query changes nothing, so one
 * that no worker answered is asked again. A worker answers a query of a closed run by replaying
 * the run's history, and of several such queries at once it can lose one (seen with Temporal's
 * TypeScript SDK 1.24 when all the followers of a run read its end together); the later tries wait
 * longer, for long histories.
 */
const defaultQueryTriesMs = [5_000, 10_000, 20_000];
/** The pause before a query that failed before its deadline is asked again. */
const queryPauseMs = 200;
/** How long an update waits for a sign of life of the run's worker (a status query) before it is refused. */
export const workerProbeMs = 5_000;

/**
 * What every handle of one client shares: the Temporal client, its task queue, the worker
 * presence cache, and the three ways a call reaches a run (a read mapped through the error table,
 * a query within its deadlines, an update only once a worker is there to take it).
 */
export class RunCalls {
  /** Worker presence for reads, asked at most every 2 s per task queue (see {@link workerPresence}). */
  private presence: PresenceCache | undefined;
  /** What this client's starts learnt of its task queue (see requireWorkerForStart). */
  readonly startable = new StartableQueues();

  constructor(
    readonly client: Client,
    readonly taskQueue: string,
    readonly searchAttributes: boolean,
    /** The deployment's tenants file: the priority and fairness of a tenant's runs and sessions (contracts/tenant-priority.ts). */
    readonly tenants?: TenantsConfig,
  ) {}

  handle(workflowId: string, runId?: string): WorkflowHandle {
    return this.client.workflow.getHandle(workflowId, runId);
  }

  describe(workflowId: string): Promise<WorkflowExecutionDescription> {
    return this.guard(workflowId, () => this.handle(workflowId).describe());
  }

  /** Whether workers poll the task queue of the run's latest execution (at most 2 s old). */
  workerPresence(workflowId: string): Promise<WorkerPresence> {
    this.presence ??= new PresenceCache(this.client);
    return this.presence.ofRun(workflowId, async () => (await this.describe(workflowId)).taskQueue);
  }

  /**
   * Runs `fn` and throws what the error table ({@link clientErrorRow}) makes of its error. A run
   * not found is looked at: an execution id it lacks, a closed run, a running run the server
   * briefly could not route to (tried again), a session's run not started yet.
   */
  async guard<T>(workflowId: string, fn: () => Promise<T>, attempt = 1): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const row = clientErrorRow(err);
      if (!row || row.becomes === 'as_is') throw err;
      if (row.kind === 'not_found') return this.notFound(workflowId, err as Error & { runId?: string }, fn, attempt);
      if (row.kind === 'query_deadline') throw new AgentClientError('unanswered', `no worker answered a query of run ${workflowId} in time: ${await unansweredNote(this.client, workflowId)}`);
      throw new AgentClientError(row.becomes, clientErrorMessage(row.kind, err, workflowId), row.kind === 'update_rejected' ? updateFailureType(err) : undefined);
    }
  }

  private async notFound<T>(workflowId: string, err: Error & { runId?: string }, fn: () => Promise<T>, attempt: number): Promise<T> {
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

  /**
   * Runs a query within `timeoutMs`, or else within {@link defaultQueryTriesMs}, mapped through
   * {@link guard}. What a failed try means is {@link queryFailure}'s to say.
   */
  query<T>(workflowId: string, timeoutMs: number | undefined, fn: () => Promise<T>): Promise<T> {
    return this.guard(workflowId, () => this.within(workflowId, timeoutMs, fn));
  }

  private async within<T>(workflowId: string, timeoutMs: number | undefined, fn: () => Promise<T>): Promise<T> {
    const tries = timeoutMs === undefined ? defaultQueryTriesMs : [timeoutMs];
    let deadline = Date.now() + (tries[0] as number);
    for (let attempt = 0; ; ) {
      try {
        return await this.client.connection.withDeadline(deadline, fn);
      } catch (err) {
        const failure = queryFailure(err);
        if (failure === 'no_poller') {
          throw new AgentClientError('unanswered', `no worker answered a query of run ${workflowId}: ${await unansweredNote(this.client, workflowId)}`);
        }
        if (failure === 'other') throw err;
        // A query also times out when the server itself is away: ask it something no worker answers.
        await this.requireServer(err);
        // The server could not reach the run's worker before the deadline: ask again until it.
        if (Date.now() + queryPauseMs < deadline) {
          await new Promise((r) => setTimeout(r, queryPauseMs));
          continue;
        }
        if (++attempt < tries.length) {
          deadline = Date.now() + (tries[attempt] as number);
          continue;
        }
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
   * Sends an update once a worker is there to take it. Sent anyway, the server holds an update
   * until a worker takes it: the caller waits with no answer, and the update may apply minutes
   * later. A queue no worker polled lately says so at once; a worker that crashed a moment ago
   * still looks polled, so the run is asked something it answers at once first (`probe`).
   *
   * @throws NoWorkerError naming the task queue and when a worker last polled it.
   */
  async update<T>(workflowId: string, send: () => Promise<T>, probe: () => Promise<unknown>): Promise<T> {
    const description = await this.describe(workflowId);
    // A closed run: the update itself says it has ended.
    if (description.status.name === 'RUNNING') {
      const presence = await workerPresence(this.client, description.taskQueue);
      if (!presence.polled) throw new NoWorkerError(presence, noWorkerPolls(presence));
      const answered = await probe().then(
        () => true,
        (err: unknown) => !(err instanceof AgentClientError && err.type === 'unanswered'),
      );
      if (!answered) throw new NoWorkerError(presence, noWorkerAnswered(workflowId, presence, `within ${workerProbeMs / 1000} s`));
    }
    return this.guard(workflowId, () => sendUntilProcessed(send));
  }

  /** Sends an operation of the operations table (contracts/operations.ts) as its validated update, and answers the run's answer. */
  operate<N extends RunOperationName>(workflowId: string, name: N, request: RunOperationRequest<N>, probe: () => Promise<unknown>): Promise<RunOperationAnswer<N>> {
    const update = runOperationMessages[name].update as UpdateDefinition<RunOperationAnswer<N>, [unknown]>;
    return this.update(workflowId, () => this.handle(workflowId).executeUpdate(update, { args: [fits(`the ${update.name} update`, request)] }), probe);
  }
}
