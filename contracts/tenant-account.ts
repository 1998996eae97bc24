import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import { builtOnce } from './lazy';
import { tenantQuotaSchema, type TenantQuota } from './tenant-settings';

/**
 * A tenant's account: one workflow per tenant (type `agentTenantAccount`) that admits its runs
 * (concurrency and start-rate quotas, in order), keeps its ledger of model usage per UTC day and
 * month, and holds its runs' model calls while a token or money quota is spent. Runs talk to it
 * with signals; operators read it with a query and change its quota with an update.
 */
export const tenantAccountWorkflowType = 'agentTenantAccount';

/** The account's workflow id: one per tenant, in the namespace of the runs. */
export function tenantAccountWorkflowId(tenant: string): string {
  return `durable-agents-tenant:${tenant}`;
}

/** The activity that brings a run into its tenant's account (starting the account when needed). */
export const joinTenantAccountActivityName = 'tenants.join';
/** The activity that tells which of an account's runs have closed (a run terminated from outside never says it left). */
export const sweepTenantRunsActivityName = 'tenants.sweep';

/** Signal names: run → account, account → run. */
export const accountSignals = {
  join: 'tenantAccountJoin',
  leave: 'tenantAccountLeave',
  usage: 'tenantAccountUsage',
  /** Account → run: its admission, a hold on its model calls, the hold's end. */
  answer: 'tenantQuota',
} as const;
/** The update that sets (or, with `quota: null`, resets to the deployment's) a tenant's quota live. */
export const setTenantQuotaUpdateName = 'setTenantQuota';
/** The query of an account's quota, usage and queue. */
export const tenantAccountQueryName = 'tenantAccount';

/** What the join activity gets from a run. */
export const joinTenantAccountInputSchema = builtOnce(() =>
  z.object({
    tenant: z.string(),
    workflowId: z.string(),
    /** Whether it counts against the concurrency and start-rate quotas (a tree's root run and session runs do; sub-agent runs do not). */
    counts: z.boolean(),
  }),
);
export type JoinTenantAccountInput = z.infer<ReturnType<typeof joinTenantAccountInputSchema>>;

/** What the join activity answers: whether the deployment keeps tenant accounts at all (a tenants file on the worker). */
export interface JoinTenantAccountResult {
  readonly accounted: boolean;
}

/** A run joins its tenant's account; `configured`: the quota of the deployment's tenants file, as the worker that sent it read it. */
export interface AccountJoin {
  readonly workflowId: string;
  readonly counts: boolean;
  readonly configured: TenantQuota;
}

/** A run's model calls of one planner turn, recorded once, from the calls' results. */
export interface AccountUsage {
  readonly workflowId: string;
  readonly tokens: number;
  readonly modelCalls: number;
  readonly tokensUnknownCalls?: number;
  readonly cost?: number;
  readonly currency?: string;
}

/** A hold on a tenant's model calls: which quota is spent, and when its period ends. */
export interface QuotaHold {
  readonly limit: 'tokensPerDay' | 'tokensPerMonth' | 'costPerDay' | 'costPerMonth';
  readonly reason: string;
  /** When the period rolls over (ISO, UTC). */
  readonly until: string;
}

/** What the account tells a run. */
export type QuotaAnswer =
  | { readonly type: 'admitted'; readonly hold?: QuotaHold }
  | { readonly type: 'queued'; readonly position: number; readonly reason: string }
  | { readonly type: 'refused'; readonly reason: string }
  | { readonly type: 'held'; readonly hold: QuotaHold }
  | { readonly type: 'released' };

/** Usage of one period (a UTC day `2026-11-29` or month `2026-11`). */
export interface PeriodUsage {
  readonly period: string;
  readonly tokens: number;
  readonly modelCalls: number;
  /** Calls whose provider reported no usage: not in `tokens`. */
  readonly tokensUnknownCalls: number;
  readonly cost: number;
  readonly currency?: string;
  /** Calls of unknown cost (no price, another currency): not in `cost`. */
  readonly costUnknownCalls: number;
}

/** An account as its query shows it. */
export interface TenantAccountView {
  readonly tenant: string;
  /** The quota in force: the live one when set, else the deployment's. */
  readonly quota: TenantQuota;
  /** The deployment's quota (the tenants file, as the newest worker read it). */
  readonly configured: TenantQuota;
  /** Set when an operator changed the quota live (`setTenantQuota`). */
  readonly override?: TenantQuota;
  /** Runs that count against the concurrency quota, open now. */
  readonly running: number;
  /** Every open run of the tenant the account knows (sub-agent runs included). */
  readonly openRuns: number;
  /** Starts waiting for a slot, first first (at most 50 listed; `waiting` counts them all). */
  readonly waiting: number;
  readonly queue: readonly string[];
  readonly day: PeriodUsage;
  readonly month: PeriodUsage;
  readonly hold?: QuotaHold;
  /** Starts admitted and refused since the account began, and usage records taken. */
  readonly counters: { readonly admitted: number; readonly refused: number; readonly usageRecords: number };
}

/** The `setTenantQuota` update's argument. */
export const setTenantQuotaInputSchema = builtOnce(() =>
  z.object({
    /** The quota from now on; `null`: back to the deployment's. */
    quota: tenantQuotaSchema().nullable(),
    /** Who changed it (for the record). */
    by: z.string().max(200).optional(),
  }).strict(),
);
export type SetTenantQuotaInput = z.infer<ReturnType<typeof setTenantQuotaInputSchema>>;

/** The account's messages, for the account workflow, the runs and the client alike. */
export const tenantAccountMessages = {
  join: defineSignal<[AccountJoin]>(accountSignals.join),
  leave: defineSignal<[{ workflowId: string }]>(accountSignals.leave),
  usage: defineSignal<[AccountUsage]>(accountSignals.usage),
  /** Account → run. */
  answer: defineSignal<[QuotaAnswer]>(accountSignals.answer),
  setQuota: defineUpdate<TenantAccountView, [SetTenantQuotaInput]>(setTenantQuotaUpdateName),
  view: defineQuery<TenantAccountView>(tenantAccountQueryName),
};
