import { ScheduleAlreadyRunning, ScheduleNotFoundError, type Client, type ScheduleDescription, type ScheduleHandle } from '@temporalio/client';
import { AgentClientError } from './errors';
import { clientErrorKind } from './error-table';
import {
  checkScheduleName,
  isSameSpec,
  parseScheduleSpec,
  scheduleMemoKey,
  sessionScheduleId,
  sessionScheduleOptions,
  type ParsedSessionScheduleSpec,
  type SessionScheduleMemo,
  type SessionScheduleSpec,
} from './session-schedule-spec';

/**
 * Why an operation on a session's schedule failed: `schedule_not_found` (no schedule of that
 * name on the session), `schedule_exists` (a schedule of that name exists with another spec).
 */
export class SessionScheduleError extends Error {
  constructor(
    readonly type: 'schedule_not_found' | 'schedule_exists',
    readonly scheduleId: string,
    message: string,
  ) {
    super(message);
    this.name = 'SessionScheduleError';
  }
}

/**
 * One firing of a schedule: when it was due, when it was taken, and its deliverer's workflow and
 * run ids. Temporal names a deliverer by the schedule and the second it fired in, so two firings
 * in one second (a trigger beside a due firing) share a workflow id; the message id
 * (`<workflowId>/<runId>`) is the firing's own.
 */
export interface ScheduleFiring {
  readonly scheduledAt: string;
  readonly takenAt: string;
  readonly workflowId: string;
  /** The first run id of the firing's deliverer. */
  readonly runId: string;
}

/** What a session's schedule is and has done. */
export interface SessionScheduleDescription {
  readonly scheduleId: string;
  readonly sessionId: string;
  readonly name: string;
  /** The spec it was created from (absent for a schedule whose memo this client cannot read). */
  readonly spec?: ParsedSessionScheduleSpec;
  readonly paused: boolean;
  readonly note?: string;
  /** Firings left, when the schedule has a limit (`remainingActions`, or 1 for `at`). */
  readonly remainingActions?: number;
  /** Firings taken so far (manual triggers included). */
  readonly firings: number;
  /** Firings skipped because one was still delivering and another waited (overlap BUFFER_ONE). */
  readonly skippedOverlap: number;
  /** Firings missed because the server was down longer than the catch-up window. */
  readonly missedCatchupWindow: number;
  /** The latest firings, oldest first. */
  readonly recentFirings: readonly ScheduleFiring[];
  /** When it fires next (ISO times, soonest first). */
  readonly nextFirings: readonly string[];
}

/** One of a session's schedules, as {@link SessionSchedules.list} lists it. */
export interface SessionScheduleSummary {
  readonly scheduleId: string;
  readonly name: string;
  readonly paused: boolean;
  readonly note?: string;
  readonly nextFirings: readonly string[];
}

function memoOf(memo: Record<string, unknown> | undefined): SessionScheduleMemo | undefined {
  const value = memo?.[scheduleMemoKey] as Partial<SessionScheduleMemo> | undefined;
  return value && typeof value === 'object' && typeof value.name === 'string' && typeof value.sessionId === 'string' ? (value as SessionScheduleMemo) : undefined;
}

/**
 * One schedule of a session, by name: pause, unpause, trigger, delete, describe. It is a Temporal
 * Schedule (id `session-<session id>/schedule-<name>`), which `temporal schedule` sees and drives too.
 */
export class SessionScheduleHandle {
  /** @internal Handles come from {@link SessionSchedules}. */
  constructor(
    private readonly client: Client,
    readonly sessionId: string,
    readonly name: string,
    readonly scheduleId: string,
  ) {}

  private get temporal(): ScheduleHandle {
    return this.client.schedule.getHandle(this.scheduleId);
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ScheduleNotFoundError) {
        throw new SessionScheduleError('schedule_not_found', this.scheduleId, `no schedule ${this.name} on session ${this.sessionId} (schedule id ${this.scheduleId})`);
      }
      throw err;
    }
  }

  /**
   * What the schedule is and has done.
   *
   * @throws SessionScheduleError `schedule_not_found`.
   */
  async describe(): Promise<SessionScheduleDescription> {
    const d: ScheduleDescription = await this.call(() => this.temporal.describe());
    const memo = memoOf(d.memo);
    return {
      scheduleId: this.scheduleId,
      sessionId: this.sessionId,
      name: this.name,
      ...(memo ? { spec: memo.spec } : {}),
      paused: d.state.paused,
      ...(d.state.note ? { note: d.state.note } : {}),
      ...(d.state.remainingActions !== undefined ? { remainingActions: d.state.remainingActions } : {}),
      firings: d.info.numActionsTaken,
      skippedOverlap: d.info.numActionsSkippedOverlap,
      missedCatchupWindow: d.info.numActionsMissedCatchupWindow,
      recentFirings: d.info.recentActions.map((a) => ({ scheduledAt: a.scheduledAt.toISOString(), takenAt: a.takenAt.toISOString(), workflowId: a.action.workflow.workflowId, runId: a.action.workflow.firstExecutionRunId })),
      nextFirings: d.info.nextActionTimes.map((t) => t.toISOString()),
    };
  }

  /** Stops firing until {@link unpause}; `note` says why (shown by describe). @throws SessionScheduleError `schedule_not_found`. */
  async pause(note?: string): Promise<void> {
    await this.call(() => this.temporal.pause(note));
  }

  /** Fires again on its spec (firings missed while paused are not posted). @throws SessionScheduleError `schedule_not_found`. */
  async unpause(note?: string): Promise<void> {
    await this.call(() => this.temporal.unpause(note));
  }

  /** Fires once now, also when paused or spent (one firing waits while another still delivers). @throws SessionScheduleError `schedule_not_found`. */
  async trigger(): Promise<void> {
    await this.call(() => this.temporal.trigger());
  }

  /** Deletes the schedule; a firing already delivering finishes. @throws SessionScheduleError `schedule_not_found`. */
  async delete(): Promise<void> {
    await this.call(() => this.temporal.delete());
  }
}

/**
 * A session's schedules: messages posted into it on a cron, an interval or once, backed by
 * Temporal Schedules. Each firing starts a small workflow on the session's task queue that posts
 * the message through `sendMessage`, with the firing's id as its message id. Get it as
 * `agents.session(id).schedules`.
 *
 * @example
 * declare const agents: AgentClient;
 * const session = agents.session('shop-42');
 * const daily = await session.schedules.create('morning-report', { cron: '0 9 * * *', timezone: 'Europe/Berlin', message: { content: 'Summarise my watchlist' } });
 * console.log((await daily.describe()).nextFirings[0]);
 */
export class SessionSchedules {
  /** @internal */
  constructor(
    private readonly client: Client,
    readonly sessionId: string,
    readonly sessionWorkflowId: string,
  ) {}

  /** The handle of the schedule `name` (asks nothing of the server). @throws AgentClientError `invalid_input` for a bad name. */
  get(name: string): SessionScheduleHandle {
    return new SessionScheduleHandle(this.client, this.sessionId, checkScheduleName(name), sessionScheduleId(this.sessionWorkflowId, name));
  }

  /**
   * Creates the schedule `name` on the session, which must be open; its firings start on the
   * session's task queue. Creating it again with the same spec changes nothing and answers the
   * same schedule.
   *
   * @throws AgentClientError `invalid_input` naming the bad field; `run_not_found` when the session
   * does not exist, `run_ended` when it is closed.
   * @throws SessionScheduleError `schedule_exists` when a schedule of that name exists with another spec.
   */
  async create(name: string, spec: SessionScheduleSpec): Promise<SessionScheduleHandle> {
    const handle = this.get(name);
    const parsed = parseScheduleSpec(spec, Date.now());
    const taskQueue = await this.openSessionTaskQueue();
    const options = sessionScheduleOptions({ sessionId: this.sessionId, sessionWorkflowId: this.sessionWorkflowId, taskQueue }, name, parsed);
    try {
      await this.client.schedule.create(options);
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
      const existing = await handle.describe();
      if (existing.spec === undefined || !isSameSpec(existing.spec, parsed)) {
        throw new SessionScheduleError('schedule_exists', handle.scheduleId, `schedule ${name} of session ${this.sessionId} (schedule id ${handle.scheduleId}) exists with another spec; delete it first to replace it`);
      }
    }
    return handle;
  }

  /**
   * The session's schedules. Listing reads Temporal's visibility store, which sees a schedule a
   * moment after it is created; {@link get} and describe see it at once.
   */
  async list(): Promise<SessionScheduleSummary[]> {
    const prefix = `${this.sessionWorkflowId}/schedule-`;
    const found: SessionScheduleSummary[] = [];
    for await (const s of this.client.schedule.list()) {
      if (!s.scheduleId.startsWith(prefix)) continue;
      found.push({
        scheduleId: s.scheduleId,
        name: memoOf(s.memo)?.name ?? s.scheduleId.slice(prefix.length),
        paused: s.state.paused,
        ...(s.state.note ? { note: s.state.note } : {}),
        nextFirings: s.info.nextActionTimes.map((t) => t.toISOString()),
      });
    }
    return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The task queue of the open session. */
  private async openSessionTaskQueue(): Promise<string> {
    try {
      const described = await this.client.workflow.getHandle(this.sessionWorkflowId).describe();
      if (described.status.name !== 'RUNNING') throw new AgentClientError('run_ended', `session ${this.sessionId} is closed (${described.status.name.toLowerCase()}): a schedule posts only into an open session`);
      return described.taskQueue;
    } catch (err) {
      if (clientErrorKind(err) === 'not_found') throw new AgentClientError('run_not_found', `session ${this.sessionId} not found (workflow ${this.sessionWorkflowId}): open it before scheduling messages into it`);
      throw err;
    }
  }
}
