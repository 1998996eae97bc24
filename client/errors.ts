import type { WorkerPresence } from './worker-presence';

/**
 * Why an AgentClient call failed. `unreadable`: what the run recorded cannot be read safely
 * (e.g. a result nested thousands of levels deep, from a run started before inputs were bounded).
 */
export type AgentClientErrorType = 'invalid_input' | 'run_not_found' | 'run_ended' | 'rejected' | 'start_failed' | 'unanswered' | 'unreadable';

/** A caller mistake (bad input, unknown run), with a message naming what was wrong. */
export class AgentClientError extends Error {
  /**
   * @param refusal for `rejected`: the run's own name for why it refused (`already_decided`,
   *   `stale_digest`, `invalid_decision`, …), to match on instead of the message.
   */
  constructor(
    readonly type: AgentClientErrorType,
    message: string,
    readonly refusal?: string,
  ) {
    super(message);
    this.name = 'AgentClientError';
  }
}

/**
 * An update refused because no worker would take it now (`unanswered`): sent anyway, the server
 * would hold it unanswered until a worker returns and apply it then, long after the caller gave
 * up. Its signal twin ({@link AgentClient.signal}) waits in the run's history instead. Also a
 * start on a task queue no worker has polled ({@link AgentClient.start}), where the run would
 * wait for ever.
 */
export class NoWorkerError extends AgentClientError {
  /**
   * @param presence what the server knows of the task queue's workers.
   * @param reason why no worker would take the update, e.g. `no worker polls task queue q (last seen …)`.
   * @param outcome what became of the request, and what to do.
   */
  constructor(
    readonly presence: WorkerPresence,
    readonly reason: string,
    outcome = 'the request was not sent',
  ) {
    super('unanswered', `${reason}; ${outcome}`);
    this.name = 'NoWorkerError';
  }
}

/**
 * `run_not_found` for a session's run that its session has queued but not started yet
 * (`sendMessage` answers a run before it starts): a reader that waits for it, as `follow` and the
 * server's streams do, waits instead of ending.
 */
export class RunNotStartedError extends AgentClientError {
  constructor(readonly workflowId: string) {
    super('run_not_found', `run ${workflowId} has not started yet: its session has it queued (following it, or waiting for its result, waits for it to start)`);
  }
}
