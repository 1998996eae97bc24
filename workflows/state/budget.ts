import type { BudgetLine, CostReport, RunPolicy } from '../../contracts/run';
import type { FinalizeReason } from '../../contracts/plan';
import type { ToolOutput } from '../../contracts/tools';
import type { ModelUsageReport } from '../agents/planner';
import type { RunEventDraft } from '../../contracts/events';

/**
 * The shortest wait between a tool's end and the task that records it which is not the tool's
 * work: neither charged to the time budget (RunClock.creditWaitAfterToolTurn) nor counted in the
 * call's duration (call-duration.ts).
 */
export const minUnchargedWaitMs = 1_000;

/** What a run has consumed so far. Plain JSON so it can be carried across continue-as-new. */
export interface Usage {
  iterations: number;
  toolCalls: number;
  consecutiveFailures: number;
  tokens: number;
  modelCalls: number;
  /**
   * Model calls whose provider reported no token usage: their tokens are not in `tokens`, so
   * the token budget is a lower bound. Absent (0) in runs recorded before it existed.
   */
  tokensUnknownCalls?: number;
  /**
   * Money the run's model calls cost, in `costCurrency` (the worker's price table), and the calls
   * of unknown cost (no price for their model, no usage, another currency): `cost` leaves them
   * out. Absent in runs recorded before money was counted.
   */
  cost?: number;
  costCurrency?: string;
  costUnknownCalls?: number;
}

/** Usage of a run that has not done anything yet. */
export function emptyUsage(): Usage {
  return { iterations: 0, toolCalls: 0, consecutiveFailures: 0, tokens: 0, modelCalls: 0 };
}

/**
 * Folds a planner's report of model calls into usage. A call of another currency than the run's
 * first priced call counts as of unknown cost (prices are never converted).
 */
export function addModelUsage(usage: Usage, report: ModelUsageReport): Usage {
  const next: Usage = {
    ...usage,
    tokens: usage.tokens + report.tokens,
    modelCalls: usage.modelCalls + report.modelCalls,
    ...(report.tokensUnknown ? { tokensUnknownCalls: (usage.tokensUnknownCalls ?? 0) + 1 } : {}),
  };
  const { cost } = report;
  if (cost && (usage.costCurrency === undefined || usage.costCurrency === cost.currency)) {
    return { ...next, cost: (usage.cost ?? 0) + cost.amount, costCurrency: cost.currency };
  }
  return report.modelCalls > 0 ? { ...next, costUnknownCalls: (usage.costUnknownCalls ?? 0) + report.modelCalls } : next;
}

/** The `model_usage` event of a planner's report. */
export function modelUsageEvent(turn: number, report: ModelUsageReport): Extract<RunEventDraft, { type: 'model_usage' }> {
  return {
    type: 'model_usage',
    turn,
    ...(report.model !== undefined ? { model: report.model } : {}),
    modelCalls: report.modelCalls,
    tokens: report.tokens,
    ...(report.tokensUnknown ? { tokensUnknown: true } : {}),
    ...(report.cost ? { cost: report.cost } : { costUnknown: true }),
  };
}

/**
 * Folds one turn's tool outputs into usage: each call counts toward the tool cap (calls
 * refused by the cap itself excepted), failures extend the consecutive-failure streak in
 * call order and a success resets it; rejections (human, operator, block) do neither.
 */
export function addToolOutputs(usage: Usage, outputs: readonly ToolOutput[]): Usage {
  let { toolCalls, consecutiveFailures } = usage;
  for (const output of outputs) {
    if (output.error?.type === 'tool_cap') continue;
    toolCalls += 1;
    if (output.status === 'ok') consecutiveFailures = 0;
    // A call a human rejected or an operator dropped or blocked did not fail: it was refused.
    else if (output.status === 'error' && output.error?.type !== 'rejected') consecutiveFailures += 1;
  }
  return { ...usage, toolCalls, consecutiveFailures, iterations: usage.iterations + 1 };
}

/**
 * The first cap the run has reached, or undefined. Checked at every safe point before a
 * planner turn; order decides which reason is reported when several hold at once.
 */
export function reachedCap(usage: Usage, policy: RunPolicy, elapsedMs: number): FinalizeReason | undefined {
  if (elapsedMs >= policy.timeBudgetMs) return 'time_budget';
  if (policy.maxTokens !== undefined && usage.tokens >= policy.maxTokens) return 'token_budget';
  if (policy.maxModelCalls !== undefined && usage.modelCalls >= policy.maxModelCalls) return 'token_budget';
  if (policy.maxCost !== undefined && (usage.cost ?? 0) >= policy.maxCost) return 'cost_budget';
  if (usage.consecutiveFailures >= policy.maxConsecutiveFailures) return 'failure_cap';
  if (usage.toolCalls >= policy.maxToolCalls) return 'tool_cap';
  if (usage.iterations >= policy.maxIterations) return 'iteration_cap';
  return undefined;
}

/** A human-readable explanation of a finalize reason, shown to the planner. */
export function describeCap(reason: FinalizeReason, usage: Usage, policy: RunPolicy): string {
  switch (reason) {
    case 'time_budget':
      return `time budget of ${policy.timeBudgetMs} ms is spent`;
    case 'token_budget':
      return `model budget is spent (${usage.tokens} tokens${usage.tokensUnknownCalls ? ` counted, ${usage.tokensUnknownCalls} call(s) of unknown usage` : ''}, ${usage.modelCalls} model calls)`;
    case 'cost_budget':
      return `cost budget of ${policy.maxCost ?? 0}${usage.costCurrency ? ` ${usage.costCurrency}` : ''} is spent (${roundedMoney(usage.cost ?? 0)} counted${usage.costUnknownCalls ? `, ${usage.costUnknownCalls} call(s) of unknown cost` : ''})`;
    case 'failure_cap':
      return `${usage.consecutiveFailures} consecutive tool failures (cap ${policy.maxConsecutiveFailures})`;
    case 'tool_cap':
      return `tool-call cap of ${policy.maxToolCalls} reached`;
    case 'iteration_cap':
      return `iteration cap of ${policy.maxIterations} reached`;
    case 'await_timeout':
      return 'nobody answered in time';
  }
}

function line(used: number, max: number | undefined): BudgetLine {
  return max === undefined ? { used } : { used, max, remaining: Math.max(0, max - used) };
}

/** The token line: what was counted, and how many calls reported no usage (so `used` is a lower bound). */
function tokensLine(usage: Usage, max: number | undefined): BudgetLine {
  const counted = line(usage.tokens, max);
  return usage.tokensUnknownCalls ? { ...counted, unknownCalls: usage.tokensUnknownCalls } : counted;
}

/** Money for people: four decimals at most (a model call can cost a hundredth of a cent). */
function roundedMoney(amount: number): number {
  return Math.round(amount * 10_000) / 10_000;
}

/** The money line: what was counted, in which currency, and how many calls are of unknown cost (so `used` is a lower bound). */
function costLine(usage: Usage, max: number | undefined): BudgetLine {
  const counted = line(usage.cost ?? 0, max);
  return {
    ...counted,
    ...(usage.costCurrency ? { currency: usage.costCurrency } : {}),
    ...(usage.costUnknownCalls ? { unknownCalls: usage.costUnknownCalls } : {}),
  };
}

/** Used / max / remaining per budget. */
export function costReport(usage: Usage, policy: RunPolicy, elapsedMs: number): CostReport {
  return {
    iterations: line(usage.iterations, policy.maxIterations),
    toolCalls: line(usage.toolCalls, policy.maxToolCalls),
    consecutiveFailures: line(usage.consecutiveFailures, policy.maxConsecutiveFailures),
    timeMs: line(elapsedMs, policy.timeBudgetMs),
    tokens: tokensLine(usage, policy.maxTokens),
    modelCalls: line(usage.modelCalls, policy.maxModelCalls),
    cost: costLine(usage, policy.maxCost),
    elapsedMs,
  };
}

/** What the time-budget watch sees of a run (time-budget-watch.ts). */
export interface WatchedRun {
  readonly isTerminal: boolean;
  /** Paused, or waiting for a human: that time does not count. */
  readonly isIdle: boolean;
  readonly timeBudgetMs: number;
  /** Tool turns begun so far. */
  readonly toolTurns: number;
}

/**
 * The watch's next step: nothing once the run has ended; wait while it is idle; cancel the tool
 * turn in progress when the budget is spent; otherwise a timer for what is left. `elapsedMs` is
 * read only when it matters (a running run).
 */
export type TimeBudgetStep = { readonly kind: 'ended' } | { readonly kind: 'idle' } | { readonly kind: 'spent' } | { readonly kind: 'arm'; readonly timerMs: number };

export function timeBudgetStep(run: WatchedRun, elapsedMs: () => number): TimeBudgetStep {
  if (run.isTerminal) return { kind: 'ended' };
  if (run.isIdle) return { kind: 'idle' };
  const remaining = run.timeBudgetMs - elapsedMs();
  return remaining <= 0 ? { kind: 'spent' } : { kind: 'arm', timerMs: remaining };
}

/**
 * Whether the run changed, since the step taken when it looked like `then`, in a way that calls
 * for the next step: an idle run goes on (or ends); a spent budget sees a new tool turn, a new
 * budget, idling or the end; an armed timer fired, or the budget changed, or the run went idle
 * or ended.
 */
export function timeBudgetStepEnds(step: TimeBudgetStep['kind'], then: WatchedRun, now: WatchedRun, timerFired = false): boolean {
  switch (step) {
    case 'ended':
      return false;
    case 'idle':
      return !now.isIdle || now.isTerminal;
    case 'spent':
      return now.toolTurns !== then.toolTurns || now.timeBudgetMs !== then.timeBudgetMs || now.isIdle || now.isTerminal;
    case 'arm':
      return timerFired || now.timeBudgetMs !== then.timeBudgetMs || now.isIdle || now.isTerminal;
  }
}
