import type { RunEventDraft } from '../../contracts/events';
import type { ProviderWait } from '../../contracts/run';
import { workflowNowIso } from '../kernel/clock';
import type { ProviderWaits } from '../kernel/provider-waits';
import { isPatched, waitOutProviderOutages } from '../versioning/patches';

/** What {@link providerWaitsOf} reads and writes of a run (RunState has it). */
export interface ProviderWaitHost {
  readonly policy: { readonly timeBudgetMs: number };
  readonly clock: { elapsedMs(): number };
  providerWait: ProviderWait | undefined;
  emit(event: RunEventDraft): void;
}

/**
 * The provider waits of a run: its status's `waitingFor`, its log and its time budget. Their
 * `open` is the one place `wait-out-provider-outages` is asked, for model calls and toolset
 * listings alike, and only when an outage comes back after a call's attempts, so runs without
 * one record no marker.
 */
export function providerWaitsOf(state: ProviderWaitHost): ProviderWaits {
  const timeBudgetLeftMs = (): number => state.policy.timeBudgetMs - state.clock.elapsedMs();
  const began = (wait: Omit<ProviderWait, 'since'>, event: RunEventDraft): void => {
    state.providerWait = { ...wait, since: workflowNowIso() };
    state.emit(event);
  };
  return {
    open: (wait, event) => {
      // Runs recorded before 1.0.0 failed the model call, or went on without the toolset.
      if (!isPatched(waitOutProviderOutages)) return 'refused';
      if (timeBudgetLeftMs() <= 0) return 'spent';
      began(wait, event);
      return 'waiting';
    },
    timeBudgetLeftMs,
    began,
    ended: (event) => {
      state.providerWait = undefined;
      if (event) state.emit(event);
    },
  };
}
