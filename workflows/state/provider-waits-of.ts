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
  state.emit({ type: 'quota_waiting', tenant: account.tenant, phase: 'model', reason: hold.reason, turn, until: hold.until });
  const wait = quotaWait(account.tenant, turn, 'quota_spent', hold.reason);
  const lifted = timeBudgetLeftMs() > 0 && (await waitShown(state, wait, () => account.hold === undefined, timeBudgetLeftMs()));
  if (!lifted) throw ApplicationFailure.nonRetryable(`${hold.reason}, until ${hold.until}; the run's time budget was spent waiting for it`, 'quota_exceeded');
  state.emit({ type: 'quota_cleared', tenant: account.tenant, phase: 'model', waitedMs: workflowNowMs() - since });
}

/** What the status shows while a run waits for its tenant's quota (`waitingFor.kind: quota`, since now). */
export function quotaWait(tenant: string, turn: number, errorType: 'quota_queued' | 'quota_spent' | 'quota_account_silent', error: string): ProviderWait {
  return { kind: 'quota', name: tenant, turn, attempts: 0, errorType, error, since: workflowNowIso() };
}

/**
 * Waits until `done` (or `timeoutMs`), the status showing `wait` meanwhile, cleared however the
 * wait ends (a kill cancels it). True when `done` came first.
 */
export async function waitShown(state: Pick<ProviderWaitHost, 'providerWait'>, wait: ProviderWait, done: () => boolean, timeoutMs?: number): Promise<boolean> {
  state.providerWait = wait;
  try {
    return timeoutMs === undefined ? (await condition(done), true) : await condition(done, timeoutMs);
  } finally {
    state.providerWait = undefined;
  }
}
