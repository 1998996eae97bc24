import { CancellationScope, condition, getExternalWorkflowHandle, proxyLocalActivities, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import {
  tenantAccountMessages,
  joinTenantAccountActivityName,
  tenantAccountWorkflowId,
  type AccountUsage,
  type JoinTenantAccountInput,
  type JoinTenantAccountResult,
  type QuotaAnswer,
  type QuotaHold,
} from '../../contracts/tenant-account';
import type { CarriedRunState } from '../../contracts/carried-state';
import type { ModelUsageReport } from '../agents/planner';
import { workflowNowMs } from '../kernel/clock';
import { runContext } from '../kernel/run-context';
import { RunTerminated } from '../kernel/run-terminated';
import type { RunAccountLink } from '../state/run-account';
import type { RunState } from '../state/run-state';
import { quotaWait, waitShown } from '../state/provider-waits-of';
import { UsageOutbox } from './usage-outbox';

const { answer: answerSignal, usage: usageSignal, leave: leaveSignal } = tenantAccountMessages;

/** The join activity: local (it signals the account and answers at once), retried until it does. */
function joinAccount(input: JoinTenantAccountInput): Promise<JoinTenantAccountResult> {
  const activities = proxyLocalActivities<Record<string, (input: JoinTenantAccountInput) => Promise<JoinTenantAccountResult>>>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });
  return activities[joinTenantAccountActivityName]!(input);
}

/** A run's side of its tenant's account: admitted at its start, its usage recorded, its leave said at its end. */
export interface TenantAdmission {
  /** Joins the account and waits for a slot when the tenant's starts wait; fails the run when the account refuses it. */
  admit(fail: (errorType: string, message: string) => never): Promise<void>;
  /** Tells the account the run has ended (not when it continues as new: it stays open). */
  leave(): Promise<void>;
}

function isAnswer(raw: unknown): raw is QuotaAnswer {
  return typeof raw === 'object' && raw !== null && ['admitted', 'queued', 'refused', 'held', 'released'].includes((raw as { type?: unknown }).type as string);
}

/**
 * The tenant admission of a run with a tenant, when its release accounts tenants (`work.joinsTenantAccount`,
 * riding on the 1.0.0 baseline: tenants are new in it): undefined otherwise, and the run emits
 * nothing for it. A sub-agent run joins without counting against the concurrency or start-rate
 * quota (its tree's root run holds the slot); its usage is the tenant's all the same.
 */
export function tenantAdmissionOf(state: RunState): TenantAdmission | undefined {
  const tenant = state.input.tenant;
  if (!tenant || !runContext().work.joinsTenantAccount) return undefined;
  const workflowId = workflowInfo().workflowId;
  const account = getExternalWorkflowHandle(tenantAccountWorkflowId(tenant));
  let admission: QuotaAnswer | undefined;
  let hold: QuotaHold | undefined;
  setHandler(answerSignal, (raw) => {
    state.received.signals += 1;
    if (!isAnswer(raw)) return;
    if (raw.type === 'held') hold = raw.hold;
    else if (raw.type === 'released') hold = undefined;
    else {
      admission = raw;
      if (raw.type === 'admitted') hold = raw.hold;
    }
  });
  const link: RunAccountLink = {
    tenant,
    get hold() {
      return hold;
    },
    carried: () => ({ workflowId, ...(hold ? { hold } : {}), ...(outbox.pending.length ? { unsent: [...outbox.pending] } : {}) }),
    recordUsage: (report: ModelUsageReport) => {
      const usage: AccountUsage = { workflowId, tokens: report.tokens, modelCalls: report.modelCalls, ...(report.tokensUnknown ? { tokensUnknownCalls: report.modelCalls } : {}), ...(report.cost ? { cost: report.cost.amount, currency: report.cost.currency } : {}) };
      void send(outbox.take(usage));
    },
  };
  // An execution after a continue-as-new keeps its place, and the hold it was under: nothing to ask.
  const kept = (state.input.continued as CarriedRunState | undefined)?.tenantAccount;
  const outbox = new UsageOutbox(kept?.workflowId === workflowId ? kept.unsent : []);
  // Each record is a signal command: sent once, whatever retries the model activity had; replay
  // sends nothing. A refused one (the account at its limit of signals) waits in the outbox.
  // The sends not yet answered: the run waits for them before it tries the refused ones again.
  const inFlight = new Set<Promise<unknown>>();
  const send = (usages: readonly AccountUsage[]): Promise<unknown> => {
    const sent = Promise.all(usages.map((usage) => account.signal(usageSignal, usage).catch(() => outbox.refused(usage))));
    inFlight.add(sent);
    return sent.finally(() => inFlight.delete(sent));
  };
  let joined = kept?.workflowId === workflowId;
  if (joined) {
    hold = kept?.hold;
    admission = { type: 'admitted' };
    state.account = link;
  }
  return {
    admit: async (fail) => {
      if (joined) return;
      const { accounted } = await joinAccount({ tenant, workflowId, counts: !state.input.parent });
      if (!accounted) return;
      joined = true;
      state.account = link;
      if (!(await condition(() => admission !== undefined || state.control.kill !== undefined, silentAccountMs))) await waitForSilentAccount(state, tenant, () => admission);
      if (admission?.type === 'queued') await waitInLine(state, tenant, () => admission);
      if (state.control.kill) throw new RunTerminated();
      if (admission?.type === 'refused') fail('quota_refused', `${admission.reason}: the run was refused (whenOver: refuse)`);
    },
    leave: async () => {
      if (!joined) return;
      await CancellationScope.nonCancellable(async () => {
        await Promise.all(inFlight);
        await deliverRefused(state, tenant, outbox, send);
        await account.signal(leaveSignal, { workflowId }).catch(() => undefined);
      });
    },
  };
}

/** How often a run that ends tries again to deliver usage records its account refused, and the first wait between tries. */
const redeliveries = { tries: 4, firstWaitMs: 1_000 } as const;

/**
 * Before a run leaves its account: the usage records the account refused go again, with waits of
 * 1, 2, 4 … s between tries (an account at its limit of signals continues as new meanwhile). What
 * still does not arrive is named in a note: the ledger misses it.
 */
async function deliverRefused(state: RunState, tenant: string, outbox: UsageOutbox, send: (usages: readonly AccountUsage[]) => Promise<unknown>): Promise<void> {
  for (let attempt = 0; attempt < redeliveries.tries && outbox.pending.length > 0; attempt++) {
    if (attempt > 0) await sleep(redeliveries.firstWaitMs * 2 ** (attempt - 1));
    await send(outbox.take());
  }
  const lost = outbox.pending;
  if (lost.length) {
    const tokens = lost.reduce((n, u) => n + u.tokens, 0);
    state.emit({ type: 'note', turn: state.turn, note: { text: `${lost.length} usage record(s) (${tokens} tokens) did not reach the account of tenant ${tenant} (${tenantAccountWorkflowId(tenant)}): it refused them ${redeliveries.tries} times`, labels: { kind: 'quota_usage_lost' } } });
  }
}

/** How long a run waits for its account's first answer before its status says the account is silent. */
const silentAccountMs = 10_000;

/**
 * The account has not answered the run's join: its workers do not run it (a workflows module
 * without `agentTenantAccount`), or none poll its task queue. The status names it; the run waits on.
 */
async function waitForSilentAccount(state: RunState, tenant: string, answer: () => QuotaAnswer | undefined): Promise<void> {
  const error = `the account of tenant ${tenant} (workflow ${tenantAccountWorkflowId(tenant)}) has not answered: its worker must run the workflow type agentTenantAccount (export it from the workflows module beside agentRun)`;
  await waitShown(state, quotaWait(tenant, state.turn, 'quota_account_silent', error), () => answer() !== undefined || state.control.kill !== undefined);
}

/** A start waits in the tenant's line: shown as `waitingFor.kind: quota` and framed by events; the wait is not charged to the time budget. */
async function waitInLine(state: RunState, tenant: string, answer: () => QuotaAnswer | undefined): Promise<void> {
  const first = answer();
  if (first?.type !== 'queued') return;
  const since = workflowNowMs();
  state.emit({ type: 'quota_waiting', tenant, phase: 'start', reason: first.reason, position: first.position });
  await waitShown(state, quotaWait(tenant, state.turn, 'quota_queued', first.reason), () => answer()?.type !== 'queued' || state.control.kill !== undefined);
  const waitedMs = workflowNowMs() - since;
  state.clock.creditWait(waitedMs, `waited for a slot of tenant ${tenant}`);
  if (answer()?.type === 'admitted') state.emit({ type: 'quota_cleared', tenant, phase: 'start', waitedMs });
}
