import { CancellationScope, condition, getExternalWorkflowHandle, isCancellation, workflowInfo } from '@temporalio/workflow';
import type { InterventionPoint } from '../../contracts/control';
import { pauseSignal, resumeSignal } from '../../contracts/definitions';
import type { HookAction, HookEvent } from '../agents/agent-hooks';
import type { CallRunner } from '../calls/call-runner';
import { workflowNowMs } from '../kernel/clock';
import { rejection } from '../kernel/failures';
import { RunTerminated } from '../kernel/run-terminated';
import type { RunState } from '../state/run-state';
import { decideSafePoint, pauseHold } from '../state/safe-point';
import type { Continuation, PauseCarry } from './continuation';

/**
 * The run's safe points: where control requests take effect (docs/operating-runs.md). A safe
 * point ends the run on a kill, runs the agent's hook for the point, and holds while the run is
 * paused; what it does is decided by `decideSafePoint` (state/safe-point.ts), this performs it.
 * Pause, resume and the kill's record live here too, as the safe points read them.
 */
export class SafePoints {
  /** Set around a safe point where a pause may continue as new: what the next execution goes on with. */
  private pauseCarry: PauseCarry | undefined;

  constructor(
    private readonly state: RunState,
    private readonly rootScope: CancellationScope,
    private readonly continuation: Continuation,
    private readonly calls: CallRunner,
  ) {}

  /** Whether the run must end: a kill, or Temporal's cancel (recorded as a kill the first time it is seen). */
  terminationRequested(): boolean {
    const { control } = this.state;
    if (!control.kill && this.rootScope.consideredCancelled) {
      control.kill = { reason: 'cancellation requested through Temporal', source: 'cancellation' };
      this.state.emit({ type: 'kill_requested', reason: control.kill.reason, source: 'cancellation' });
    }
    return control.kill !== undefined;
  }

  /**
   * A safe point: ends the run if a kill is pending, runs the agent's hook and applies
   * queued modifications for this point, and waits here while the run is paused. Returns at
   * once (no promise) when there is nothing to wait for, which is almost always: callers
   * await only a returned promise.
   *
   * @throws RunTerminated when the run must end.
   */
  checkpoint(point: InterventionPoint, hookEvent?: HookEvent, tool?: string): Promise<HookAction | undefined> | HookAction | undefined {
    const { state } = this;
    if (this.terminationRequested()) throw new RunTerminated();
    const event = hookEvent ?? (point === 'before_llm' || point === 'task_boundary' ? { point, turn: state.turn, messages: state.messages } : undefined);
    const action = event ? this.runHook(event) : undefined;
    const decision = decideSafePoint(point, { hookAction: action, breakpointHit: state.control.hitBreakpoint(point, tool), pauseRequested: state.control.isPauseRequested, ...(tool !== undefined ? { tool } : {}) });
    if (decision.pause !== undefined) this.requestPause(decision.pause);
    if (decision.hold) return this.holdAtCheckpoint(point, action, decision.editsConversation);
    if (decision.editsConversation) this.applyConversationModifications();
    return action;
  }

  /**
   * {@link checkpoint} at a point where a pause may continue as new (when operators' messages
   * pile up while it holds): `carry` is what the next execution goes on with.
   */
  checkpointCarrying(carry: PauseCarry, point: InterventionPoint, hookEvent?: HookEvent): Promise<HookAction | undefined> | HookAction | undefined {
    this.pauseCarry = carry;
    try {
      return this.checkpoint(point, hookEvent);
    } finally {
      this.pauseCarry = undefined;
    }
  }

  private async holdAtCheckpoint(point: InterventionPoint, action: HookAction | undefined, editsConversation: boolean): Promise<HookAction | undefined> {
    await this.holdWhilePaused(point);
    if (this.terminationRequested()) throw new RunTerminated();
    if (editsConversation) this.applyConversationModifications();
    return action;
  }

  /**
   * Waits here while a pause is requested. The first branch to arrive marks the run paused at
   * this point; a parallel branch arriving while it is paused waits as well.
   *
   * @throws RunTerminated when a kill arrives while waiting.
   */
  async holdWhilePaused(point: InterventionPoint): Promise<void> {
    const hold = pauseHold(this.state.control);
    if (hold === 'go') return;
    if (hold === 'pause_here') {
      await this.waitWhilePaused(point);
    } else {
      await this.untilResumedOrKilled();
    }
    if (this.terminationRequested()) throw new RunTerminated();
  }

  /**
   * Waits (cancellably) until the pause is lifted or a kill arrives. With `carry` (a safe point
   * of the loop, see {@link checkpointCarrying}) it continues as new when operators' messages
   * reach their bounds meanwhile, and the next execution holds again.
   */
  private async untilResumedOrKilled(carry?: PauseCarry): Promise<void> {
    const { control } = this.state;
    const mayContinue = (): boolean => carry !== undefined && this.continuation.mayContinueWhilePaused();
    try {
      await CancellationScope.cancellable(() => condition(() => !control.isPauseRequested || control.kill !== undefined || mayContinue()));
    } catch (err) {
      if (!isCancellation(err)) throw err;
    }
    if (carry && control.isPauseRequested && control.kill === undefined && mayContinue()) {
      await this.continuation.continueFromWait(() => (this.calls.busy ? undefined : carry));
      return this.untilResumedOrKilled(carry);
    }
  }

  private async waitWhilePaused(point: InterventionPoint): Promise<void> {
    const { state } = this;
    const { control } = state;
    // Set by the caller around this safe point, read before the first await.
    const carry = this.pauseCarry;
    control.pausedAt = { point, turn: state.turn, sinceMs: workflowNowMs(), historyLength: workflowInfo().historyLength };
    state.emit({ type: 'paused', point, turn: state.turn, reason: control.pauseReason ?? 'paused' });
    state.refreshStatus();
    await this.untilResumedOrKilled(carry);
    const pausedMs = workflowNowMs() - (control.pausedAt?.sinceMs ?? workflowNowMs());
    control.pausedAt = undefined;
    if (!this.terminationRequested()) state.emit({ type: 'resumed', pausedMs });
    state.refreshStatus();
  }

  /** Asks the run to pause at its next safe point. */
  requestPause(reason: string): void {
    const { state } = this;
    if (state.control.isPauseRequested) return;
    state.control.pauseReason = reason;
    state.emit({ type: 'pause_requested', reason });
    state.refreshStatus();
    this.signalChildren(pauseSignal, { reason: `parent paused: ${reason}` });
  }

  /** Lets a paused (or pausing) run go on. */
  resume(reason: string | undefined): void {
    const { state } = this;
    state.control.pauseReason = undefined;
    if (!state.control.isPaused) state.emit({ type: 'resumed', pausedMs: 0, ...(reason ? { reason } : {}) });
    state.refreshStatus();
    this.signalChildren(resumeSignal, { reason: reason ? `parent resumed: ${reason}` : 'parent resumed' });
  }

  /** Passes pause and resume on to the sub-agent runs in flight (no command when there are none). */
  private signalChildren(signal: typeof pauseSignal | typeof resumeSignal, payload: { reason: string }): void {
    for (const child of this.state.children.values()) {
      if (child.status !== 'running') continue;
      // A child that already ended (or refuses) is no reason to fail the parent.
      getExternalWorkflowHandle(child.workflowId).signal(signal, payload).catch(() => undefined);
    }
  }

  private runHook(event: HookEvent): HookAction | undefined {
    const hook = this.state.agent.hooks?.[event.point] as ((e: HookEvent) => HookAction | undefined) | undefined;
    let action: HookAction | undefined;
    try {
      action = hook?.(event);
    } catch (err) {
      // A bug in agent code: retrying the workflow task would fail the same way forever.
      throw rejection(`agent ${this.state.agent.name}: its ${event.point} hook threw: ${err instanceof Error ? err.message : String(err)}`, 'hook_failed');
    }
    if (action) this.state.emit({ type: 'intervention_applied', source: 'hook', kind: action.type, point: event.point, detail: `agent hook: ${action.type}` });
    return action;
  }

  private applyConversationModifications(): void {
    const { state } = this;
    const items = state.control.take((q) => q.intervention.kind === 'inject_message' || q.intervention.kind === 'override_system_prompt');
    for (const { id, intervention } of items) {
      if (intervention.kind === 'inject_message') {
        state.messages.push({ role: intervention.role, content: intervention.content });
        if (intervention.messageId !== undefined) state.steered.push(intervention.messageId);
        const message = intervention.messageId !== undefined ? ` (session message ${intervention.messageId})` : '';
        const steered = intervention.messageId !== undefined ? { messageId: intervention.messageId } : {};
        state.emit({ type: 'intervention_applied', id, source: 'operator', kind: intervention.kind, point: 'before_llm', detail: `${intervention.role} message injected${message}`, ...steered });
      } else if (intervention.kind === 'override_system_prompt') {
        state.instructionsOverride = intervention.content;
        state.emit({ type: 'intervention_applied', id, source: 'operator', kind: intervention.kind, point: 'before_llm', detail: 'system prompt overridden' });
      }
    }
  }
}
