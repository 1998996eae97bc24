/**
 * The support window: the releases whose recorded runs this workflow code replays. A run started
 * by an older release is refused with {@link OutsideSupportWindowError}, never left to diverge
 * from its history (which would be reported as nondeterminism). Sandbox-safe: the replay tools of
 * the worker and testing entry points use the same words.
 */

/** The oldest release whose runs this code replays, and the last release that replays all older ones. */
export const supportWindow = {
  /** Runs started by this release or later replay on this code. */
  oldest: '0.13.0',
  /** Runs started before {@link supportWindow.oldest} finish on workers of this release line (it replays every release back to 0.1.0). */
  lastReplayingOlder: '0.13.x',
  /** Why an `agentRun` history without a baseline marker is outside the window. */
  noBaselineReason: 'recorded by a release before 0.9.0 (no baseline marker)',
} as const;

/** The refusal's message: why the run is outside the window, the window, and where to finish it. */
export function outsideSupportWindowMessage(reason: string): string {
  return `${reason}, outside this version's support window (≥ ${supportWindow.oldest}); finish it on a worker running ≤ ${supportWindow.lastReplayingOlder}`;
}

/** What every refusal's message contains, for tools that find it in a workflow task failure. */
export const outsideSupportWindowMarker = "outside this version's support window";

/**
 * A recorded run this code does not replay. Thrown in workflow code, it fails the workflow task
 * (it is not an ApplicationFailure): the run stays as it is, and a worker of an older release
 * can take its next task.
 */
export class OutsideSupportWindowError extends Error {
  constructor(reason: string) {
    super(outsideSupportWindowMessage(reason));
    this.name = 'OutsideSupportWindowError';
  }
}
