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
