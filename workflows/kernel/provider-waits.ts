import type { RunEventDraft } from '../../contracts/events';
import type { ProviderWait } from '../../contracts/run';
import { wellFormed } from '../../contracts/safe-text';
import { workflowNowIso } from './clock';

/**
 * What a call that waits out a provider outage (a model call, an MCP toolset listing) needs of its
 * run: how much of the time budget is left, and a way to say that it waits and when it stopped.
 */
export interface ProviderWaits {
  /** Time left of the run's time budget, ms (0 or less: spent). A wait gives up when it is spent. */
  timeBudgetLeftMs(): number;
  /** The call began to wait: the status shows `wait` and the run logs `event`. */
  began(wait: Omit<ProviderWait, 'since'>, event: RunEventDraft): void;
  /** The call stopped waiting (the provider answered, or the run gave up); `event` is logged when given. */
  ended(event?: RunEventDraft): void;
}

/** Longest error text a wait reports (status and event). */
const maxErrorChars = 500;

/** An error message for a wait's status and event: well-formed and at most {@link maxErrorChars} long. */
export function waitErrorText(message: string): string {
  return wellFormed(message.length > maxErrorChars ? `${message.slice(0, maxErrorChars)}…` : message);
}

/** What {@link providerWaitsOf} reads and writes of a run (RunState has it). */
export interface ProviderWaitHost {
  readonly policy: { readonly timeBudgetMs: number };
  readonly clock: { elapsedMs(): number };
  providerWait: ProviderWait | undefined;
  emit(event: RunEventDraft): void;
}

/** The provider waits of a run: its status's `waitingFor`, its log and its time budget. */
export function providerWaitsOf(state: ProviderWaitHost): ProviderWaits {
  return {
    timeBudgetLeftMs: () => state.policy.timeBudgetMs - state.clock.elapsedMs(),
    began: (wait, event) => {
      state.providerWait = { ...wait, since: workflowNowIso() };
      state.emit(event);
    },
    ended: (event) => {
      state.providerWait = undefined;
      if (event) state.emit(event);
    },
  };
}
