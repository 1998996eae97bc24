import type { InterventionPoint } from '../../contracts/control';
import type { HookAction } from '../agents/agent-hooks';

/**
 * Whether a safe point has to wait (it returned a promise) or was passed at once. Safe points
 * are passed at once almost always; awaiting only when they wait saves a promise and a
 * microtask per safe point, several per call.
 */
export function isPending<T>(value: Promise<T> | T): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}

/**
 * What a branch of the run (the loop, or one of a turn's calls) does about a pause when it
 * reaches a safe point: go on; become the branch that marks the run paused at this point (the
 * first to arrive); or wait beside the branch that already did, until resume or kill.
 */
export type PauseHold = 'go' | 'pause_here' | 'wait';

export function pauseHold(control: { readonly isPauseRequested: boolean; readonly isPaused: boolean }): PauseHold {
  if (!control.isPauseRequested) return 'go';
  return control.isPaused ? 'wait' : 'pause_here';
}

/** What reached a safe point, as {@link decideSafePoint} reads it. */
export interface SafePointSeen {
  /** What the agent's hook for this point answered (after a kill was ruled out: a kill ends the run before the hook runs). */
  readonly hookAction: HookAction | undefined;
  /** Whether a breakpoint of this point (and tool) is set; a `once` breakpoint was taken by asking. */
  readonly breakpointHit: boolean;
  /** Whether a pause was requested before this point. */
  readonly pauseRequested: boolean;
  /** The tool of a `before_tool` point. */
  readonly tool?: string;
}

/** What a safe point does: the pause to request (the hook's, else the breakpoint's), whether it holds, and whether it applies queued conversation edits. */
export interface SafePointDecision {
  /** The reason of a new pause request; absent when none, or when one was requested already. */
  readonly pause?: string;
  /** The point holds until resume or kill. */
  readonly hold: boolean;
  /** Queued message injections and system prompt overrides are applied here, once it goes on (before the planner's turn). */
  readonly editsConversation: boolean;
}

/**
 * The safe-point policy, after the kill check and the hook: a hook that asks to pause, or a
 * breakpoint, requests a pause (the hook's reason first); a requested pause holds the point; at
 * `before_llm` the queued conversation edits are applied once the point goes on.
 */
export function decideSafePoint(point: InterventionPoint, seen: SafePointSeen): SafePointDecision {
  const asked = seen.hookAction?.type === 'pause' ? seen.hookAction.reason : seen.breakpointHit ? `breakpoint at ${point}${seen.tool ? ` (${seen.tool})` : ''}` : undefined;
  const pause = asked !== undefined && !seen.pauseRequested ? asked : undefined;
  return { ...(pause !== undefined ? { pause } : {}), hold: seen.pauseRequested || asked !== undefined, editsConversation: point === 'before_llm' };
}
