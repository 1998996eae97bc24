import type { BudgetLine, CostReport, InterventionReceipt, PauseResult, RunResult, RunStatusReport } from '../contracts';
import type { HistoryStatus } from '../client/history-view';
import { formatWorkerVersion, type RunWorkerVersion } from '../client/worker-version';

function line(name: string, b: BudgetLine, unit = ''): string {
  const unknown = b.unknownCalls ? ` (+ unknown: ${b.unknownCalls} call(s) without usage)` : '';
  return `${name} ${b.used}${unit}${b.max !== undefined ? `/${b.max}${unit}` : ''}${unknown}`;
}

/** The money line: `cost 0.0123/5 USD (+ unknown: 2 call(s) without a price)`; money is rounded to 4 decimals. */
function moneyLine(b: BudgetLine): string {
  const money = (amount: number): string => String(Math.round(amount * 10_000) / 10_000);
  const unknown = b.unknownCalls ? ` (+ unknown: ${b.unknownCalls} call(s) without a price or usage)` : '';
  return `cost ${money(b.used)}${b.max !== undefined ? `/${money(b.max)}` : ''}${b.currency ? ` ${b.currency}` : ''}${unknown}`;
}

/** Budget usage on one line: `iterations 1/25, tool calls 2/100, …`. */
export function renderCost(cost: CostReport): string {
  return [
    line('iterations', cost.iterations),
    line('tool calls', cost.toolCalls),
    line('failures', cost.consecutiveFailures),
    line('time', cost.timeMs, ' ms'),
    line('tokens', cost.tokens),
    line('model calls', cost.modelCalls),
    ...(cost.cost ? [moneyLine(cost.cost)] : []),
  ].join(', ');
}

/** What a run waits for besides humans: its model provider or an MCP server in an outage. */
export function waitingText(w: NonNullable<RunStatusReport['waitingFor']>): string {
  const what = w.kind === 'model' ? `the model provider (${w.name})` : `MCP server ${w.name}`;
  return `${what} since ${w.since}, turn ${w.turn}, after ${w.attempts} failed attempt(s); retrying until it answers or the time budget is spent; last error ${w.errorType}: ${w.error}`;
}

/** A status report as aligned `key  value` lines (with the run's worker version when known). */
export function renderStatus(runId: string, s: RunStatusReport, workerVersion?: RunWorkerVersion): string[] {
  const pause = s.pausedAt ? ` at ${s.pausedAt.point}, turn ${s.pausedAt.turn}${s.pauseReason ? `: ${s.pauseReason}` : ''}` : '';
  const pending = s.pendingCalls.map((c) => `${c.name}(${c.toolCallId})${c.dispatched ? ' running' : ' waiting'}`).join(', ');
  const breakpoints = s.control.breakpoints.map((b) => `${b.point}${b.tool ? `:${b.tool}` : ''}${b.once ? ' (once)' : ''}`).join(', ');
  const queued = s.control.queuedInterventions.map((q) => `#${q.id} ${q.kind}`).join(', ');
  const rows: [string, string][] = [
    ['run', runId],
    ['agent', s.agent],
    ['status', `${s.status}${pause}`],
    ...(s.waitingFor ? [['waiting for', waitingText(s.waitingFor)] as [string, string]] : []),
    ['turn', `${s.turn} (iterations ${s.iteration})`],
    ['pending', pending || 'none'],
    ['blocked', s.control.blockedTools.join(', ') || 'none'],
    ['breakpoints', breakpoints || 'none'],
    ['queued', queued || 'none'],
    ['budget', renderCost(s.cost)],
    ['last event', `#${s.lastEventSeq}`],
  ];
  if (workerVersion) rows.push(['worker', formatWorkerVersion(workerVersion)]);
  if (s.finalizeReason) rows.splice(3, 0, ['finalizing', s.finalizeReason]);
  return rows.map(([k, v]) => `${k.padEnd(12)}${v}`);
}

/** What a run's history says of it (no worker answered its status query). */
export function renderHistoryStatus(s: HistoryStatus): string[] {
  const rows: [string, string][] = [
    ['run', s.workflowId],
    ['source', 'history (no worker answered; pending calls, controls and budget need one)'],
    ['agent', s.agent ?? '-'],
    ['status', s.status],
    ['turns', `${s.turns} (tool calls ${s.toolCalls}, model calls ${s.modelCalls})`],
    ['started', s.startTime],
    ['worker', formatWorkerVersion(s.workerVersion)],
  ];
  if (s.closeTime) rows.push(['closed', s.closeTime]);
  if (s.failure !== undefined) rows.push(['failure', s.failure]);
  if (s.result) rows.push(['result', `${s.result.status}${s.result.final ? `: ${s.result.final.text}` : ''}`]);
  rows.push(['history', `${s.historyLength} events`]);
  return rows.map(([k, v]) => `${k.padEnd(12)}${v}`);
}

/** A run's result: status, final answer, session state. */
export function renderResult(r: RunResult): string[] {
  return [
    `result: ${r.status}${r.finalizeReason ? ` (${r.finalizeReason})` : ''}${r.final ? `: ${r.final.text}` : ''}`,
    `iterations: ${r.iterations}; ${renderCost(r.cost)}`,
    `session state: ${JSON.stringify(r.sessionState)}`,
  ];
}

/** What the pause update answered. */
export function renderPaused(runId: string, p: PauseResult): string {
  return `paused ${runId} at ${p.point}, turn ${p.turn} (history length ${p.historyLength})`;
}

/** What the intervene update answered. */
export function renderReceipt(runId: string, r: InterventionReceipt): string {
  return `intervention #${r.id} ${r.kind} ${r.state} on ${runId}`;
}
