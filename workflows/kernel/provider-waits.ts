import type { RunEventDraft } from '../../contracts/events';
import type { ProviderWait } from '../../contracts/run';
import { wellFormed } from '../../contracts/safe-text';

/**
 * How a call that failed for a provider outage after its attempts (a model call, an MCP toolset
 * listing) goes on: `refused`, the run does not wait out outages (a run of a release before
 * 1.0.0: the call fails as it did); `spent`, the run's time budget is spent (nothing is logged);
 * `waiting`, the wait began.
 */
export type ProviderWaitOpening = 'refused' | 'spent' | 'waiting';

/**
 * What a call that waits out a provider outage (a model call, an MCP toolset listing) needs of its
 * run: whether it waits at all, how much of the time budget is left, and a way to say that it
 * waits and when it stopped.
 */
export interface ProviderWaits {
  /**
   * The call's attempts failed for an outage: whether it waits for the provider (see
   * {@link ProviderWaitOpening}); when it does, the status shows `wait` and the run logs `event`.
   * Called once per call, when the outage first comes back: the one place model calls and
   * listings decide to wait.
   */
  open(wait: Omit<ProviderWait, 'since'>, event: RunEventDraft): ProviderWaitOpening;
  /** Time left of the run's time budget, ms (0 or less: spent). A wait gives up when it is spent. */
  timeBudgetLeftMs(): number;
  /** The call began to wait again (after the provider answered badly in between): as {@link open}'s `waiting`. */
  began(wait: Omit<ProviderWait, 'since'>, event: RunEventDraft): void;
  /** The call stopped waiting (the provider answered, or the run gave up); `event` is logged when given. */
  ended(event?: RunEventDraft): void;
  /**
   * A model call is about to start: while the tenant's model calls are held (a token or money
   * quota spent), a promise that settles when the hold is lifted, or rejects with `quota_exceeded`
   * when the run's time budget is spent first. Undefined: no hold, the call goes on at once.
   */
  beforeModelCall?(turn: number): Promise<void> | undefined;
}

/** Longest error text a wait reports (status and event). */
const maxErrorChars = 500;

/** An error message for a wait's status and event: well-formed and at most {@link maxErrorChars} long. */
export function waitErrorText(message: string): string {
  return wellFormed(message.length > maxErrorChars ? `${message.slice(0, maxErrorChars)}…` : message);
}
