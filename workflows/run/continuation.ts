import { CancellationScope, allHandlersFinished, condition, continueAsNew, isCancellation, workflowInfo } from '@temporalio/workflow';
import { jsonByteLength } from '../../contracts/json';
import type { CarriedOpenTurn } from '../../contracts/carried-state';
import type { RunInput, RunResult } from '../../contracts/run';
import type { CallRunner } from '../calls/call-runner';
import { workflowNowMs } from '../kernel/clock';
import { carriedInputMaxBytes } from '../state/carry';
import { continuedInput } from '../state/carried-state-of';
import type { RunState } from '../state/run-state';
import { continueWhileWaiting, isPatched } from '../versioning/patches';
import { continuesAsNew } from './continues-as-new';

/** Whether this run continues as new while it waits, or for many messages: the one place `continue-while-waiting` is asked (see {@link continuesAsNew}). */
const hasContinueWhileWaiting = (): boolean => isPatched(continueWhileWaiting);

/** What a run holding at a pause carries when it continues as new there: the open turn, or nothing at a boundary. */
export interface PauseCarry {
  readonly openTurn?: CarriedOpenTurn;
}

/**
 * How one execution of a run hands over to the next (continue-as-new): at a turn boundary, in a
 * wait for people (the open turn carried), or while it holds at a pause. It owns the waits for
 * people too, since they are where a waiting run continues. The carry is a value: the open turn
 * as `CallRunner.openTurnAtRest` or the await describes it, or what a safe point passes.
 */
export class Continuation {
  /** Set when the run is about to continue as new: long polls answer so handlers can finish. */
  closing = false;
  /** Set when it is about to continue as new in a wait for people: pause updates in flight answer too. */
  continuingWhileWaiting = false;
  /** Set once this execution found its state too large to carry (reported once). */
  private carryRefused = false;
  /** Set when this execution waits on without continuing as new (a run recorded before 1.0.0, or a state too large to carry). */
  private waitsWithoutContinuing = false;
  /** The continue-as-new of a wait in progress: the waits that see it due share it. */
  private continuation: Promise<'moved' | 'refused'> | undefined;

  /**
   * @param terminationRequested whether a kill (or Temporal's cancel, which it records as one) ends the run.
   */
  constructor(
    private readonly state: RunState,
    private readonly calls: CallRunner,
    private readonly rootScope: CancellationScope,
    private readonly terminationRequested: () => boolean,
  ) {}

  /**
   * Waits (cancellably) for `done`, a kill, or the timeout. Returns whether `done` holds.
   *
   * @throws RunTerminated when a cancellation request arrives while waiting.
   */
  async waitFor(done: () => boolean, timeoutMs?: number): Promise<boolean> {
    const stop = (): boolean => done() || this.state.control.kill !== undefined || this.mayContinueWhileWaiting();
    const until = timeoutMs === undefined ? undefined : workflowNowMs() + timeoutMs;
    try {
      await CancellationScope.cancellable(async () => {
        if (timeoutMs === undefined) await condition(stop);
        else await condition(stop, timeoutMs);
      });
    } catch (err) {
      if (isCancellation(err) && this.terminationRequested()) {
        // Temporal's cancel ends the run like a kill: the wait ends unfulfilled and the run
        // closes at its next safe point, after the turn's other calls are answered.
        return done();
      }
      throw err;
    }
    if (!done() && this.state.control.kill === undefined && this.mayContinueWhileWaiting()) return this.continueWhileWaiting(done, until);
    return done();
  }

  /** True when the run continues as new at this turn boundary: a long history, or (since 1.0.0) many messages. */
  continuesAtBoundary(): boolean {
    const { state } = this;
    const info = workflowInfo();
    const point = { at: 'boundary', suggested: info.continueAsNewSuggested, longHistory: info.historyLength >= state.policy.continueAsNewAfterEvents, manyMessages: state.messagesNearLimit() } as const;
    return continuesAsNew(point, hasContinueWhileWaiting);
  }

  /** True when a run holding at a pause should continue as new there: the continuation is due and no call is in flight. */
  mayContinueWhilePaused(): boolean {
    return !this.waitsWithoutContinuing && !this.closing && this.state.continuationDue() && !this.calls.busy;
  }

  /**
   * True when a wait for people should end this execution: it has accepted enough messages (or
   * history) to continue as new, and its turn is at rest ({@link openTurnAtRest}).
   */
  private mayContinueWhileWaiting(): boolean {
    return !this.waitsWithoutContinuing && !this.closing && this.state.continuationDue() && this.openTurnAtRest() !== undefined;
  }

  /** The turn in progress as the next execution takes it over, when nothing of it is in flight. */
  private openTurnAtRest(): CarriedOpenTurn | undefined {
    const open = this.state.human.open;
    if (open) return { kind: 'await', awaitId: open.awaitId, spec: open.spec, answers: [...open.answers.values()], ...(open.deadline ? { deadline: open.deadline } : {}) };
    return this.calls.openTurnAtRest();
  }

  /**
   * A wait for people that could last for ever must not let the execution reach Temporal's
   * limits (updates, signals, events): operators' messages keep coming while it waits. It
   * continues as new, carrying the open turn; every wait of the turn shares that one
   * continuation. When the turn moved meanwhile (a decision came), it waits on and tries again at
   * the next chance; when it cannot continue (a run recorded before 1.0.0, a state too large),
   * it waits on in this execution.
   */
  private async continueWhileWaiting(done: () => boolean, until: number | undefined): Promise<boolean> {
    await this.continueFromWait(() => {
      const openTurn = this.openTurnAtRest();
      return openTurn && { openTurn };
    });
    return this.waitFor(done, until === undefined ? undefined : Math.max(1, until - workflowNowMs()));
  }

  /**
   * The continue-as-new of a wait (for people, or at a pause), shared by the waits that see it
   * due. Returns only when the run did not continue; the wait goes on. A run recorded before
   * 1.0.0 (replayed without the marker) or a state too large to carry waits on in this execution.
   */
  async continueFromWait(atRest: () => PauseCarry | undefined): Promise<void> {
    if (!continuesAsNew({ at: 'wait' }, hasContinueWhileWaiting)) {
      this.waitsWithoutContinuing = true;
      return;
    }
    this.continuation ??= this.continueAsNewAtRest(atRest);
    const outcome = await this.continuation;
    this.continuation = undefined;
    if (outcome === 'refused') this.waitsWithoutContinuing = true;
  }

  /**
   * Continues as new with what `atRest` says to carry, once handlers have finished, if the run is
   * still at rest then (undefined: something moved, try again later). Returns only when it did
   * not continue: `refused` when its state is too large to carry.
   */
  private async continueAsNewAtRest(atRest: () => PauseCarry | undefined): Promise<'moved' | 'refused'> {
    this.closing = true;
    this.continuingWhileWaiting = true;
    await condition(allHandlersFinished);
    const carry = this.state.control.kill === undefined && !this.rootScope.consideredCancelled ? atRest() : undefined;
    if (carry) await this.continueAsNew(carry.openTurn);
    this.closing = false;
    this.continuingWhileWaiting = false;
    return carry ? 'refused' : 'moved';
  }

  /**
   * Continues as new at this turn boundary, carrying compacted state within a byte bound;
   * invisible to clients. When even the most compacted state passes the bound (the session or
   * planner state alone is too large), the run goes on in this execution and says so once.
   */
  async continueAsNew(openTurn?: CarriedOpenTurn): Promise<void> {
    const { state } = this;
    const next = continuedInput(state, carriedInputMaxBytes, openTurn);
    const { input } = next;
    if (input === undefined) {
      if (!this.carryRefused) {
        this.carryRefused = true;
        state.emit({
          type: 'note',
          turn: state.turn,
          note: { text: `not continued as new: the carried state would be ${next.bytes} bytes, over the ${carriedInputMaxBytes}-byte bound (session state ${jsonByteLength(state.sessionState)} bytes, planner state ${jsonByteLength(state.plannerState)} bytes); the run goes on in this execution` },
        });
      }
      return;
    }
    if (openTurn) {
      // Handlers have finished (continueAsNewAtRest): what the turn's waits report as they end does not matter now.
      state.continuing = true;
      return continueAsNew<(input: RunInput) => Promise<RunResult>>(input);
    }
    this.closing = true;
    await condition(allHandlersFinished);
    return continueAsNew<(input: RunInput) => Promise<RunResult>>(input);
  }
}
