import {
  agentSessionWorkflowType,
  closeSessionSignal,
  sendMessageUpdate,
  sessionQuery,
  type SessionInput,
  type SessionMessage,
  type SessionReport,
  type SessionRunRecord,
} from '../contracts';
import { sessionEventsQuery, sessionOperationMessages, sessionRunWorkflowId, type QueueEdit, type SessionEvent, type SessionQueueView } from '../contracts/session';
import { clientErrorKind } from './error-table';
import { fits } from './input-checks';
import { checkSessionInput, sendOpening, sessionStart } from './session-send-opening';
import { workerProbeMs, type RunCalls } from './run-calls';
import { RunHandle } from './run-handle';
import { SessionSchedules } from './session-schedules';
import { refuseUnregisteredTenant } from './tenant-refusal';

/** Workflow id of the session with this id. */
export function sessionWorkflowId(sessionId: string): string {
  return `session-${sessionId}`;
}

/**
 * One session (a conversation of many runs that share state and history), by its id: open it,
 * send it messages, read it, close it. Each message becomes a run, driven by its own
 * {@link RunHandle}. Getting one asks nothing of the server: `agents.session(id)`.
 *
 * @example
 * declare const agents: AgentClient;
 * const session = agents.session('shop-42');
 * await session.open({ agent: 'watchlist' });
 * const record = await session.sendMessage({ content: 'Add AAPL' });
 * const result = await session.run(record.runNumber).result();
 * console.log(result.final?.text, (await session.status()).runs.length);
 * await session.close();
 */
export class SessionHandle {
  /** The session's workflow id (`session-<sessionId>`). */
  readonly workflowId: string;
  /** Messages posted into the session on a cron, an interval or once (Temporal Schedules). */
  readonly schedules: SessionSchedules;

  /** @internal Handles come from `agents.session(id)`. */
  constructor(
    private readonly calls: RunCalls,
    readonly sessionId: string,
  ) {
    this.workflowId = sessionWorkflowId(sessionId);
    this.schedules = new SessionSchedules(calls.client, sessionId, this.workflowId);
  }

  /**
   * Opens the session unless it is open already (then nothing changes). Later runs of the
   * session start from the session state and history the earlier ones left.
   *
   * @returns the session's workflow id.
   * @throws AgentClientError `invalid_input` naming the bad field.
   */
  async open(input: SessionInput): Promise<string> {
    checkSessionInput(input);
    try {
      await this.calls.client.workflow.start(agentSessionWorkflowType, sessionStart(this.calls, this.workflowId, input));
    } catch (err) {
      refuseUnregisteredTenant(err, input.tenant, this.calls.client.options.namespace);
      if (clientErrorKind(err) !== 'already_started') throw err;
    }
    return this.workflowId;
  }

  /**
   * Sends the next user message; answers the run that will handle it (queued until the runs
   * before it end). Follow it, or wait for its result, with {@link run}. With `open`, a session
   * that is not open is opened with that input in the same call (update-with-start), and an open
   * one of another agent refuses the message.
   *
   * @throws NoWorkerError when no worker would take it now (nothing is sent).
   */
  sendMessage(message: SessionMessage, options: { readonly open?: SessionInput } = {}): Promise<SessionRunRecord> {
    if (options.open) return sendOpening(this.calls, this.workflowId, message, options.open);
    const probe = () => this.calls.query(this.workflowId, workerProbeMs, () => this.calls.handle(this.workflowId).query(sessionQuery));
    return this.calls.update(this.workflowId, () => this.calls.handle(this.workflowId).executeUpdate(sendMessageUpdate, { args: [fits('the sendMessage update', message)] }), probe);
  }

  /**
   * Edits, drops or moves to the front a message that waits for its run, by its id; answers the
   * queue as it is then (next first). The queue itself is in {@link status} (`queue`).
   *
   * @throws AgentClientError `rejected` naming the message when it does not wait in the queue (it runs, ran or was dropped).
   */
  editQueue(edit: QueueEdit): Promise<SessionQueueView> {
    const probe = () => this.calls.query(this.workflowId, workerProbeMs, () => this.calls.handle(this.workflowId).query(sessionQuery));
    const update = sessionOperationMessages.editQueue.update;
    return this.calls.update(this.workflowId, () => this.calls.handle(this.workflowId).executeUpdate(update, { args: [fits('the editQueue update', edit)] }), probe);
  }

  /**
   * The session's events after `afterSeq` (0: all it keeps, its latest 500), oldest first: what
   * became of each message (queued, run next, steered, repeated), each run's start and end and
   * why, what each steer came to, each change of the queue.
   */
  events(afterSeq = 0): Promise<{ events: SessionEvent[]; lastSeq: number }> {
    return this.calls.guard(this.workflowId, () => this.calls.handle(this.workflowId).query(sessionEventsQuery, afterSeq));
  }

  /** The session's state, history size and runs (the session query, answered by a worker). */
  status(): Promise<SessionReport> {
    return this.calls.guard(this.workflowId, () => this.calls.handle(this.workflowId).query(sessionQuery));
  }

  /** The session's runs so far, first to last, each with its number, workflow id and status. */
  async runs(): Promise<SessionReport['runs']> {
    return (await this.status()).runs;
  }

  /** The handle of the session's run number `runNumber` (1 for the first message's), started or still queued. */
  run(runNumber: number): RunHandle {
    return new RunHandle(this.calls, sessionRunWorkflowId(this.workflowId, runNumber));
  }

  /** Closes the session after its queued runs (a signal: it is queued when no worker runs). */
  async close(): Promise<void> {
    await this.calls.guard(this.workflowId, () => this.calls.handle(this.workflowId).signal(closeSessionSignal));
  }
}
