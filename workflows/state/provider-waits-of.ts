import type { RunEventDraft } from '../../contracts/events';
import type { ProviderWait } from '../../contracts/run';
import { ApplicationFailure, condition } from '@temporalio/workflow';
import { workflowNowIso, workflowNowMs } from '../kernel/clock';
import type { RunAccountLink } from './run-account';
import type { ProviderWaits } from '../kernel/provider-waits';
import { isPatched, waitOutProviderOutages } from '../versioning/patches';

/** What {@link providerWaitsOf} reads and writes of a run (RunState has it). */
export interface ProviderWaitHost {
  readonly policy: { readonly timeBudgetMs: number };
  readonly clock: { elapsedMs(): number };
  providerWait: ProviderWait | undefined;
  readonly account?: RunAccountLink | undefined;
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
    beforeModelCall: (turn) => (state.account?.hold ? waitOutQuotaHold(state, state.account, turn, timeBudgetLeftMs) : undefined),
  };
}

/**
 * A model call waits while its tenant's model calls are held (a token or money quota spent), as
 * for a provider outage: the status shows it (`waitingFor.kind: quota`), `quota_waiting` and
 * `quota_cleared` frame it, and the run's time budget still runs: spent, the call fails with
 * `quota_exceeded`. A kill cancels the wait with the planner turn.
 */
async function waitOutQuotaHold(state: ProviderWaitHost, account: RunAccountLink, turn: number, timeBudgetLeftMs: () => number): Promise<void> {
  const hold = account.hold;
  if (!hold) return;
  const since = workflowNowMs();
  state.providerWait = { kind: 'quota', name: account.tenant, turn, attempts: 0, errorType: 'quota_spent', error: hold.reason, since: new Date(since).toISOString() };
  state.emit({ type: 'quota_waiting', tenant: account.tenant, phase: 'model', reason: hold.reason, turn, until: hold.until });
  try {
    const lifted = timeBudgetLeftMs() > 0 && (await condition(() => account.hold === undefined, timeBudgetLeftMs()));
    if (!lifted) throw ApplicationFailure.nonRetryable(`${hold.reason}, until ${hold.until}; the run's time budget was spent waiting for it`, 'quota_exceeded');
    state.emit({ type: 'quota_cleared', tenant: account.tenant, phase: 'model', waitedMs: workflowNowMs() - since });
  } finally {
    state.providerWait = undefined;
  }
}
