import { Client, Connection, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import {
  agentRunWorkflowType,
  describeIssues,
  eventPageSchema,
  eventsQuery,
  runInputSchema,
  runResultSchema,
  statusQuery,
  type EventPage,
  type RunEvent,
  type RunInput,
  type RunResult,
  type RunStatusReport,
} from '../contracts';
import { connectionOptions, temporalConfigFromEnv, type TemporalConfig } from '../worker/config';

/** Error type strings of the client; match on `type`. */
export type AgentClientErrorType = 'invalid_input' | 'run_not_found';

/** A caller mistake (bad input, unknown run), with a message naming what was wrong. */
export class AgentClientError extends Error {
  constructor(
    readonly type: AgentClientErrorType,
    message: string,
  ) {
    super(message);
    this.name = 'AgentClientError';
  }
}

const terminalStatuses = new Set(['completed', 'failed', 'terminated']);

/** Options of {@link AgentClient.start}. */
export interface StartOptions {
  /** Workflow id; defaults to `run-<agent>-<random>`. Starting an id that is running fails. */
  readonly workflowId?: string;
}

/**
 * Typed client of agent runs: start, result, status, events, follow.
 *
 * @example
 * const agents = await AgentClient.connect();
 * const { workflowId } = await agents.start({ agent: 'watchlist', messages: [{ role: 'user', content: 'Add AAPL' }] });
 * for await (const event of agents.follow(workflowId)) console.log(event.type);
 */
export class AgentClient {
  constructor(
    readonly client: Client,
    readonly taskQueue: string,
  ) {}

  /** Connects with a config (default: the TEMPORAL_* environment variables). */
  static async connect(config: TemporalConfig = temporalConfigFromEnv()): Promise<AgentClient> {
    const connection = await Connection.connect(connectionOptions(config));
    return new AgentClient(new Client({ connection, namespace: config.namespace }), config.taskQueue);
  }

  /**
   * Starts a run after validating its input.
   *
   * @throws AgentClientError `invalid_input` naming the bad field.
   */
  async start(input: RunInput, options: StartOptions = {}): Promise<{ workflowId: string; runId: string }> {
    const parsed = runInputSchema.safeParse(input);
    if (!parsed.success) throw new AgentClientError('invalid_input', `invalid run input: ${describeIssues(parsed.error)}`);
    const workflowId = options.workflowId ?? `run-${parsed.data.agent}-${Math.random().toString(36).slice(2, 10)}`;
    const handle = await this.client.workflow.start(agentRunWorkflowType, {
      taskQueue: this.taskQueue,
      workflowId,
      args: [input],
      typedSearchAttributes: [],
      memo: { agent: parsed.data.agent, ...(parsed.data.sessionId ? { sessionId: parsed.data.sessionId } : {}) },
    });
    return { workflowId, runId: handle.firstExecutionRunId };
  }

  private handle(workflowId: string): WorkflowHandle {
    return this.client.workflow.getHandle(workflowId);
  }

  private async guard<T>(workflowId: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw new AgentClientError('run_not_found', `no run with id ${workflowId}`);
      throw err;
    }
  }

  /** Waits for the run's result. Throws the workflow failure when the run failed. */
  async result(workflowId: string): Promise<RunResult> {
    return this.guard(workflowId, async () => runResultSchema.parse(await this.handle(workflowId).result()));
  }

  /** Current status, iteration, pending calls and budget. */
  async status(workflowId: string): Promise<RunStatusReport> {
    return this.guard(workflowId, () => this.handle(workflowId).query(statusQuery));
  }

  /** Events with seq > afterSeq. */
  async events(workflowId: string, afterSeq = 0, limit = 200): Promise<EventPage> {
    return this.guard(workflowId, async () => eventPageSchema.parse(await this.handle(workflowId).query(eventsQuery, { afterSeq, limit })));
  }

  /**
   * Yields every event from `afterSeq` on, until the run ends. Reconnect by passing the last
   * seq seen. Polls the events query (queries add nothing to history).
   */
  async *follow(workflowId: string, options: { afterSeq?: number; pollMs?: number } = {}): AsyncGenerator<RunEvent> {
    let afterSeq = options.afterSeq ?? 0;
    for (;;) {
      const page = await this.events(workflowId, afterSeq);
      for (const event of page.events) yield event;
      afterSeq = page.nextAfterSeq;
      if (page.events.length === 0 && terminalStatuses.has(page.status)) return;
      if (page.events.length === 0) await new Promise((r) => setTimeout(r, options.pollMs ?? 250));
    }
  }
}
