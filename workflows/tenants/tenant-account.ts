import {
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { describeIssues } from '../../contracts/json';
import { setTenantQuotaInputSchema, sweepTenantRunsActivityName, tenantAccountMessages } from '../../contracts/tenant-account';
import type { TenantQuota } from '../../contracts/tenant-settings';
import { workflowNowMs } from '../kernel/clock';
import { newAccount, nextWakeAt, step, sweepCandidates, sweepDueAt, viewOf, type AccountEvent, type AccountSend, type AccountState } from './account-machine';

/** The account workflow's input: its tenant, the deployment's quota, and what it carries when it continues as new. */
export interface TenantAccountInput {
  readonly tenant: string;
  readonly configured: TenantQuota;
  readonly carried?: AccountState;
}

const { join: joinSignal, leave: leaveSignal, usage: usageSignal, answer: answerSignal, setQuota: setQuotaUpdate, view: accountQuery } = tenantAccountMessages;

/** Runs one look for closed runs checks (one describe each, in one activity). */
const sweepBatch = 200;
/**
 * History length at which the account continues as new (it carries only its state). Small, because
 * an account takes a signal per planner turn of every run of its tenant: a worker that loses it
 * from its cache replays it whole, and while that replay runs the server force-closes the workflow
 * task once more than 100 signals arrived meanwhile (`history.maximumBufferedEventsBatch`), so the
 * next attempt replays more. Temporal also refuses signals past 10,000 per execution.
 */
const maxHistoryEvents = 1_000;

/**
 * A tenant's account (workflow type `agentTenantAccount`, one per tenant, started by the first
 * run that joins): the driver of account-machine.ts. Runs join, leave and record their model
 * usage with signals; the account answers them with `tenantQuota` signals (admitted, queued,
 * refused, held, released). Operators read it (`tenantAccount` query) and change its quota live
 * (`setTenantQuota` update). It never ends by itself; it continues as new when its history grows.
 */
export async function agentTenantAccount(input: TenantAccountInput): Promise<void> {
  let state = input.carried ?? newAccount(input.tenant, input.configured, workflowNowMs());
  const outbox: AccountSend[] = [];
  let sweptAt = workflowNowMs();
  const apply = (event: AccountEvent): void => {
    const next = step(state, event, workflowNowMs());
    state = next.state;
    outbox.push(...next.sends);
  };
  setHandler(joinSignal, (join) => apply({ type: 'join', ...join }));
  setHandler(leaveSignal, ({ workflowId }) => apply({ type: 'leave', workflowId }));
  setHandler(usageSignal, (usage) => apply({ type: 'usage', ...usage }));
  setHandler(accountQuery, () => viewOf(state, workflowNowMs()));
  setHandler(
    setQuotaUpdate,
    ({ quota }) => {
      apply({ type: 'set_quota', quota });
      return viewOf(state, workflowNowMs());
    },
    {
      validator: (raw) => {
        const parsed = setTenantQuotaInputSchema().safeParse(raw);
        if (!parsed.success) throw new Error(`invalid quota for tenant ${input.tenant}: ${describeIssues(parsed.error)}`);
      },
    },
  );
  const sweep = proxyActivities<Record<string, (workflowIds: string[]) => Promise<string[]>>>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 3 } })[sweepTenantRunsActivityName]!;

  for (;;) {
    const now = workflowNowMs();
    const wake = nextWakeAt(state, now);
    const sweepAt = sweepDueAt(state, sweptAt);
    const due = Math.min(wake ?? Infinity, sweepAt ?? Infinity);
    // Usage records send nothing: the history's length wakes the loop too, or an account that only
    // takes records (long runs, no new starts) would never continue as new.
    const pending = (): boolean => outbox.length > 0 || historyIsLong();
    const woke = Number.isFinite(due) ? await condition(pending, Math.max(1, due - now)) : (await condition(pending), true);
    if (!woke) apply({ type: 'tick' });
    const dueAt = sweepDueAt(state, sweptAt);
    if (dueAt !== undefined && workflowNowMs() >= dueAt) {
      sweptAt = workflowNowMs();
      const closed = await sweep(sweepCandidates(state, sweepBatch)).catch(() => []);
      if (closed.length) apply({ type: 'closed', workflowIds: closed });
    }
    await deliver(outbox.splice(0), apply);
    if (outbox.length === 0 && historyIsLong()) {
      await condition(allHandlersFinished);
      if (outbox.length === 0) await continueAsNew<typeof agentTenantAccount>({ tenant: input.tenant, configured: state.configured, carried: state });
    }
  }
}

function historyIsLong(): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= maxHistoryEvents;
}

/** Sends each answer to its run; a run that is gone (closed, or never started) leaves the account. */
async function deliver(sends: readonly AccountSend[], apply: (event: AccountEvent) => void): Promise<void> {
  await Promise.all(
    sends.map(({ workflowId, answer }) =>
      getExternalWorkflowHandle(workflowId)
        .signal(answerSignal, answer)
        .catch(() => apply({ type: 'leave', workflowId })),
    ),
  );
}
