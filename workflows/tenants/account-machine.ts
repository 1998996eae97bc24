import type { AccountJoin, AccountUsage, PeriodUsage, QuotaAnswer, QuotaHold, TenantAccountView } from '../../contracts/tenant-account';
import type { TenantQuota } from '../../contracts/tenant-settings';

/**
 * The decisions of a tenant's account, pure: what a join, a leave, a usage record, a quota change
 * or the passing of time does to the account, and what it tells which runs. The account workflow
 * (tenant-account.ts) feeds it events and performs the answers; nothing here touches Temporal.
 */

/** A run the account knows is open: when it was admitted, and whether it counts against the concurrency quota. */
export interface OpenRun {
  readonly since: number;
  readonly counts: boolean;
}

/** The account's whole state: what it carries when it continues as new. */
export interface AccountState {
  readonly tenant: string;
  readonly configured: TenantQuota;
  readonly override: TenantQuota | undefined;
  readonly open: Readonly<Record<string, OpenRun>>;
  /** Starts waiting for a slot, first first. */
  readonly queue: readonly { readonly workflowId: string; readonly since: number }[];
  /** The start-rate bucket: its level (starts it may admit now) at `at` (ms). */
  readonly bucket: { readonly level: number; readonly at: number };
  readonly day: PeriodUsage;
  readonly month: PeriodUsage;
  readonly hold: QuotaHold | undefined;
  readonly counters: { readonly admitted: number; readonly refused: number; readonly usageRecords: number };
}

export type AccountEvent =
  | ({ readonly type: 'join' } & AccountJoin)
  | { readonly type: 'leave'; readonly workflowId: string }
  | ({ readonly type: 'usage' } & AccountUsage)
  | { readonly type: 'set_quota'; readonly quota: TenantQuota | null }
  | { readonly type: 'closed'; readonly workflowIds: readonly string[] }
  | { readonly type: 'tick' };

/** An answer for one run. */
export interface AccountSend {
  readonly workflowId: string;
  readonly answer: QuotaAnswer;
}

export interface AccountStep {
  readonly state: AccountState;
  readonly sends: readonly AccountSend[];
}

const minuteMs = 60_000;

/** The UTC day (`2026-11-29`) and month (`2026-11`) of a time. */
export function periodsOf(nowMs: number): { day: string; month: string } {
  const iso = new Date(nowMs).toISOString();
  return { day: iso.slice(0, 10), month: iso.slice(0, 7) };
}

/** When a day or month period ends (the next one's first ms, UTC). */
export function periodEnd(period: string): number {
  const [y, m, d] = period.split('-').map(Number) as [number, number, number | undefined];
  return d === undefined ? Date.UTC(y, m, 1) : Date.UTC(y, m - 1, d + 1);
}

function emptyUsage(period: string): PeriodUsage {
  return { period, tokens: 0, modelCalls: 0, tokensUnknownCalls: 0, cost: 0, costUnknownCalls: 0 };
}

/** A new account, with the deployment's quota. */
export function newAccount(tenant: string, configured: TenantQuota, nowMs: number): AccountState {
  const { day, month } = periodsOf(nowMs);
  return {
    tenant,
    configured,
    override: undefined,
    open: {},
    queue: [],
    bucket: { level: configured.startsPerMinute ?? 0, at: nowMs },
    day: emptyUsage(day),
    month: emptyUsage(month),
    hold: undefined,
    counters: { admitted: 0, refused: 0, usageRecords: 0 },
  };
}

/** The quota in force. */
export function quotaOf(state: AccountState): TenantQuota {
  return state.override ?? state.configured;
}

/** Runs open now that count against the concurrency quota. */
export function runningOf(state: AccountState): number {
  let n = 0;
  for (const id in state.open) if (state.open[id]?.counts) n += 1;
  return n;
}

/** The bucket's level at `nowMs`: it refills evenly, `startsPerMinute` a minute, up to `startsPerMinute`. */
function levelAt(state: AccountState, nowMs: number): number {
  const perMinute = quotaOf(state).startsPerMinute;
  if (perMinute === undefined) return Infinity;
  return Math.min(perMinute, state.bucket.level + ((nowMs - state.bucket.at) * perMinute) / minuteMs);
}

/** Why a start cannot be admitted now (undefined: it can). */
function blockedBy(state: AccountState, nowMs: number): string | undefined {
  const quota = quotaOf(state);
  if (quota.concurrentRuns !== undefined && runningOf(state) >= quota.concurrentRuns) return `tenant ${state.tenant} has ${runningOf(state)} of ${quota.concurrentRuns} concurrent runs open (concurrentRuns)`;
  if (levelAt(state, nowMs) < 1) return `tenant ${state.tenant} is at its start rate (startsPerMinute ${quota.startsPerMinute})`;
  return undefined;
}

function rounded(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** The quota a period's usage has spent, if one is. */
function spentHold(state: AccountState): QuotaHold | undefined {
  const q = quotaOf(state);
  const currency = (u: PeriodUsage): string => (u.currency ? ` ${u.currency}` : '');
  const checks: [QuotaHold['limit'], number | undefined, number, PeriodUsage, string][] = [
    ['tokensPerDay', q.tokensPerDay, state.day.tokens, state.day, 'tokens'],
    ['costPerDay', q.costPerDay, state.day.cost, state.day, 'cost'],
    ['tokensPerMonth', q.tokensPerMonth, state.month.tokens, state.month, 'tokens'],
    ['costPerMonth', q.costPerMonth, state.month.cost, state.month, 'cost'],
  ];
  for (const [limit, max, used, usage, what] of checks) {
    if (max === undefined || used < max) continue;
    const amount = what === 'cost' ? `${rounded(used)} of ${max}${currency(usage)}` : `${used} of ${max} tokens`;
    return { limit, reason: `tenant ${state.tenant} has used ${amount} in ${usage.period} (${limit})`, until: new Date(periodEnd(usage.period)).toISOString() };
  }
  return undefined;
}

function sameHold(a: QuotaHold | undefined, b: QuotaHold | undefined): boolean {
  return a?.limit === b?.limit && a?.until === b?.until;
}

function addUsage(usage: PeriodUsage, u: AccountUsage): PeriodUsage {
  const next = { ...usage, tokens: usage.tokens + u.tokens, modelCalls: usage.modelCalls + u.modelCalls, tokensUnknownCalls: usage.tokensUnknownCalls + (u.tokensUnknownCalls ?? 0) };
  if (u.cost !== undefined && u.currency !== undefined && (usage.currency === undefined || usage.currency === u.currency)) return { ...next, cost: usage.cost + u.cost, currency: u.currency };
  return { ...next, costUnknownCalls: usage.costUnknownCalls + u.modelCalls };
}

/** The account after `event` at `nowMs`, and what it tells which runs. */
export function step(before: AccountState, event: AccountEvent, nowMs: number): AccountStep {
  const sends: AccountSend[] = [];
  let state = rollPeriods(before, nowMs);
  switch (event.type) {
    case 'join':
      state = { ...state, configured: event.configured };
      state = join(state, event, nowMs, sends);
      break;
    case 'leave':
      state = leave(state, [event.workflowId]);
      break;
    case 'closed':
      state = leave(state, event.workflowIds);
      break;
    case 'usage':
      state = { ...state, day: addUsage(state.day, event), month: addUsage(state.month, event), counters: { ...state.counters, usageRecords: state.counters.usageRecords + 1 } };
      break;
    case 'set_quota':
      state = { ...state, override: event.quota ?? undefined };
      break;
    case 'tick':
      break;
  }
  state = admitWaiting(state, nowMs, sends);
  state = reconsiderHold(state, sends);
  return { state, sends };
}

/** A period that ended starts afresh. */
function rollPeriods(state: AccountState, nowMs: number): AccountState {
  const { day, month } = periodsOf(nowMs);
  if (state.day.period === day && state.month.period === month) return state;
  return { ...state, day: state.day.period === day ? state.day : emptyUsage(day), month: state.month.period === month ? state.month : emptyUsage(month) };
}

function admit(state: AccountState, workflowId: string, counts: boolean, nowMs: number, sends: AccountSend[]): AccountState {
  const level = levelAt(state, nowMs);
  const bucket = counts && Number.isFinite(level) ? { level: level - 1, at: nowMs } : state.bucket;
  sends.push({ workflowId, answer: { type: 'admitted', ...(state.hold ? { hold: state.hold } : {}) } });
  const counters = counts ? { ...state.counters, admitted: state.counters.admitted + 1 } : state.counters;
  return { ...state, open: { ...state.open, [workflowId]: { since: nowMs, counts } }, bucket, counters };
}

function join(state: AccountState, j: AccountJoin, nowMs: number, sends: AccountSend[]): AccountState {
  // Again (a run that continued as new, a retried join): the answer it had.
  if (state.open[j.workflowId]) {
    sends.push({ workflowId: j.workflowId, answer: { type: 'admitted', ...(state.hold ? { hold: state.hold } : {}) } });
    return state;
  }
  const queued = state.queue.findIndex((q) => q.workflowId === j.workflowId);
  if (queued >= 0) {
    sends.push({ workflowId: j.workflowId, answer: { type: 'queued', position: queued + 1, reason: blockedBy(state, nowMs) ?? 'runs before it wait' } });
    return state;
  }
  if (!j.counts) return admit(state, j.workflowId, false, nowMs, sends);
  const blocked = state.queue.length > 0 ? 'runs started before it wait for a slot' : blockedBy(state, nowMs);
  if (!blocked) return admit(state, j.workflowId, true, nowMs, sends);
  if (quotaOf(state).whenOver === 'refuse') {
    sends.push({ workflowId: j.workflowId, answer: { type: 'refused', reason: blockedBy(state, nowMs) ?? blocked } });
    return { ...state, counters: { ...state.counters, refused: state.counters.refused + 1 } };
  }
  sends.push({ workflowId: j.workflowId, answer: { type: 'queued', position: state.queue.length + 1, reason: blockedBy(state, nowMs) ?? blocked } });
  return { ...state, queue: [...state.queue, { workflowId: j.workflowId, since: nowMs }] };
}

function leave(state: AccountState, workflowIds: readonly string[]): AccountState {
  const gone = new Set(workflowIds.filter((id) => state.open[id] || state.queue.some((q) => q.workflowId === id)));
  if (gone.size === 0) return state;
  const open: Record<string, OpenRun> = {};
  for (const [id, run] of Object.entries(state.open)) if (!gone.has(id)) open[id] = run;
  return { ...state, open, queue: state.queue.filter((q) => !gone.has(q.workflowId)) };
}

/** Admits waiting starts, first first, while the quota lets them in. */
function admitWaiting(state: AccountState, nowMs: number, sends: AccountSend[]): AccountState {
  let next = state;
  while (next.queue.length > 0 && !blockedBy(next, nowMs)) {
    const [first, ...rest] = next.queue;
    next = admit({ ...next, queue: rest }, first!.workflowId, true, nowMs, sends);
  }
  return next;
}

/** Holds the tenant's model calls when a token or money quota is spent, and releases them when it is not any more. */
function reconsiderHold(state: AccountState, sends: AccountSend[]): AccountState {
  const hold = spentHold(state);
  if (sameHold(hold, state.hold)) return state;
  // Runs just admitted in this step were told the old hold with their admission; they get the new state too.
  for (const workflowId of Object.keys(state.open)) sends.push({ workflowId, answer: hold ? { type: 'held', hold } : { type: 'released' } });
  return { ...state, hold };
}

/**
 * When the account must look again without an event (ms): a start waiting for the bucket to
 * refill, or a hold whose period rolls over. Undefined: only events change it.
 */
export function nextWakeAt(state: AccountState, nowMs: number): number | undefined {
  const wakes: number[] = [];
  const perMinute = quotaOf(state).startsPerMinute;
  if (state.queue.length > 0 && perMinute !== undefined && perMinute > 0 && levelAt(state, nowMs) < 1) {
    wakes.push(nowMs + Math.ceil(((1 - levelAt(state, nowMs)) * minuteMs) / perMinute));
  }
  if (state.hold) wakes.push(Date.parse(state.hold.until));
  return wakes.length ? Math.max(nowMs, Math.min(...wakes)) : undefined;
}

/** How often the account looks for open runs that closed without leaving (terminated from outside). */
export const sweepEveryMs = { whileStartsWait: 60_000, otherwise: 600_000 } as const;

/**
 * When the account looks for runs that closed without leaving, from the last look: each minute
 * while starts wait for a slot (a run that never left holds it), every ten minutes while any run
 * is open (so the open runs it keeps and carries never grow with runs long gone); never with none.
 */
export function sweepDueAt(state: AccountState, sweptAtMs: number): number | undefined {
  if (waitsForSlot(state)) return sweptAtMs + sweepEveryMs.whileStartsWait;
  for (const _ in state.open) return sweptAtMs + sweepEveryMs.otherwise;
  return undefined;
}

/** The open runs one look checks, oldest first: at most `max` (one activity describes each). */
export function sweepCandidates(state: AccountState, max: number): string[] {
  return Object.entries(state.open)
    .sort(([, a], [, b]) => a.since - b.since)
    .slice(0, max)
    .map(([id]) => id);
}

/** Whether starts wait for a concurrency slot (so runs that closed without leaving are looked for). */
export function waitsForSlot(state: AccountState): boolean {
  const max = quotaOf(state).concurrentRuns;
  return state.queue.length > 0 && max !== undefined && runningOf(state) >= max;
}

/** The account as its query shows it. */
export function viewOf(state: AccountState, nowMs: number): TenantAccountView {
  const rolled = rollPeriods(state, nowMs);
  return {
    tenant: state.tenant,
    quota: quotaOf(state),
    configured: state.configured,
    ...(state.override ? { override: state.override } : {}),
    running: runningOf(state),
    openRuns: Object.keys(state.open).length,
    waiting: state.queue.length,
    queue: state.queue.slice(0, 50).map((q) => q.workflowId),
    day: rolled.day,
    month: rolled.month,
    ...(state.hold ? { hold: state.hold } : {}),
    counters: state.counters,
  };
}
