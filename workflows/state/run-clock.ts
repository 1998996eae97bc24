import type { RunEventDraft } from '../../contracts/events';
import { workflowNowMs } from '../kernel/clock';
import { budgetCountsWork, isPatched } from '../versioning/patches';
import { minUnchargedWaitMs } from './budget';

/** What the clock tells the run: a change of idling, and a credit it logged. */
export interface RunClockHooks {
  idleChanged(idle: boolean): void;
  credited(event: RunEventDraft): void;
}

/**
 * The run's work time: time since the run started, less the time it was idle (paused, or waiting
 * for people) and the waits after a tool turn that were not work (a rewind's reset, a wait for a
 * workflow worker). The time budget counts this, never wall time.
 */
export class RunClock {
  private readonly startedAtMs: number;
  private idleMs: number;
  private idleSinceMs: number | undefined;
  /** The tool turn in progress: when its calls were planned, and what its tools reported of their ends. */
  private toolTurnWork = { startedMs: 0, ends: 0, lastEndMs: 0 };

  /** @param carried what the previous execution carried (its start and idle time so far). */
  constructor(
    carried: { readonly startedAt: string; readonly idleMs: number } | undefined,
    private readonly hooks: RunClockHooks,
  ) {
    this.startedAtMs = carried ? Date.parse(carried.startedAt) : workflowNowMs();
    this.idleMs = carried?.idleMs ?? 0;
  }

  /** The run goes idle (or stops being idle); the time between does not count. */
  trackIdle(idle: boolean): void {
    if (idle === this.isIdle) return;
    const now = workflowNowMs();
    if (idle) this.idleSinceMs = now;
    else {
      this.idleMs += now - (this.idleSinceMs ?? now);
      this.idleSinceMs = undefined;
    }
    this.hooks.idleChanged(idle);
  }

  /** Paused, or waiting for people (itself, or through the sub-agent runs of all its calls in flight): the time budget stands still. */
  get isIdle(): boolean {
    return this.idleSinceMs !== undefined;
  }

  /** A tool turn's calls were planned now. */
  beginToolTurn(): void {
    this.toolTurnWork = { startedMs: workflowNowMs(), ends: 0, lastEndMs: 0 };
  }

  /** A call's tool finished at `endedAtMs` (its worker's clock); see {@link creditWaitAfterToolTurn}. */
  readonly noteCallEnded = (endedAtMs: number): void => {
    this.toolTurnWork.ends += 1;
    this.toolTurnWork.lastEndMs = Math.max(this.toolTurnWork.lastEndMs, endedAtMs);
  };

  /**
   * After a tool turn whose calls all succeeded and reported their ends: the time between the
   * last end and now (when the run records the outputs) is not work. It is a rewind's reset
   * (the outputs recorded again, minutes or days later) or a wait for a workflow worker. Such a
   * wait of {@link minUnchargedWaitMs} or more is not charged to the time budget (since
   * `budget-counts-work`; asked only then, so other runs record no marker). At most the turn's
   * own duration is credited, whatever the worker's clock says.
   */
  creditWaitAfterToolTurn(outputs: readonly { status: string }[]): void {
    const work = this.toolTurnWork;
    this.toolTurnWork = { startedMs: workflowNowMs(), ends: 0, lastEndMs: 0 };
    if (outputs.length === 0 || work.ends !== outputs.length || outputs.some((o) => o.status !== 'ok')) return;
    const now = workflowNowMs();
    const wait = Math.min(now - work.lastEndMs, now - work.startedMs);
    if (wait < minUnchargedWaitMs || this.isIdle || !isPatched(budgetCountsWork)) return;
    this.idleMs += wait;
    this.hooks.credited({ type: 'budget_credited', waitedMs: wait, reason: 'no worker recorded the turn\'s results (a rewind, or no workflow worker running)' });
  }

  /** A wait that was not work (a start waiting for its tenant's quota): not charged, and logged as a credit. */
  creditWait(waitedMs: number, reason: string): void {
    if (waitedMs <= 0 || this.isIdle) return;
    this.idleMs += waitedMs;
    this.hooks.credited({ type: 'budget_credited', waitedMs, reason });
  }

  /** Run time so far, excluding time spent paused or waiting for humans. */
  elapsedMs(): number {
    const idleNow = this.idleSinceMs !== undefined ? workflowNowMs() - this.idleSinceMs : 0;
    return workflowNowMs() - this.startedAtMs - this.idleMs - idleNow;
  }

  /** What the next execution carries: the run's start, and its idle time so far (a wait in progress included). */
  toCarried(): { startedAt: string; idleMs: number } {
    return {
      startedAt: new Date(this.startedAtMs).toISOString(),
      // A wait in progress (the run continues as new while it waits for people) is idle time too.
      idleMs: this.idleMs + (this.idleSinceMs !== undefined ? workflowNowMs() - this.idleSinceMs : 0),
    };
  }
}
