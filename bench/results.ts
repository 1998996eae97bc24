import type { BaselineHistory, BaselineResults } from './baseline-scenarios';
import type { HistoryMarginal, HistorySize } from './history';
import type { MachineFacts } from './machine';
import type { BenchPlan } from './plan';
import type { LatencyResult, ThroughputResult } from './scenarios';
import type { WorkerTuning } from './worker';

/** Every durable figure of one invocation. */
export interface DurableResults {
  readonly s1: LatencyResult;
  readonly s2: ThroughputResult;
  readonly s3: LatencyResult;
  readonly history: HistorySize[];
  readonly historyMarginal: HistoryMarginal | undefined;
}

/** The document written to bench/results/: facts, sizes, every figure. */
export interface BenchResults {
  readonly startedAt: string;
  readonly durationMs: number;
  readonly plan: BenchPlan;
  readonly machine: MachineFacts;
  /** Load averages (1, 5, 15 min) when the benchmark started and ended. */
  readonly load: { readonly atStart: number[]; readonly atEnd: number[] };
  /** Worker options given with --worker-options (empty: createAgentWorker defaults). */
  readonly workerTuning: WorkerTuning;
  readonly durable: DurableResults;
  readonly baseline: BaselineResults;
  readonly rows: ResultRow[];
}

/** One line of the report: a durable figure, its baseline counterpart and their ratio. */
export interface ResultRow {
  readonly section: string;
  readonly metric: string;
  readonly unit: 'ms' | '/s' | 'bytes' | 'events' | 'bytes/turn' | 'events/turn' | 'count';
  readonly durable: number;
  readonly baseline: number | undefined;
  /** durable ÷ baseline. */
  readonly ratio: number | undefined;
}

function row(section: string, metric: string, unit: ResultRow['unit'], durable: number, baseline?: number): ResultRow {
  const ratio = baseline !== undefined && baseline > 0 ? durable / baseline : undefined;
  return { section, metric, unit, durable, baseline, ratio };
}

function shapeLabel(s: { turns: number; callsPerTurn: number }): string {
  return `T=${s.turns} K=${s.callsPerTurn}`;
}

function latencyRows(section: string, d: LatencyResult, b: BaselineResults['s1']): ResultRow[] {
  return [
    row(section, 'turn p50, event log (plan→plan)', 'ms', d.eventTurnMs.p50, b.turnMs.p50),
    row(section, 'turn p95, event log (plan→plan)', 'ms', d.eventTurnMs.p95, b.turnMs.p95),
    row(section, 'turn p50, wall (run wall ÷ T)', 'ms', d.wallTurnMs.p50, b.wallTurnMs.p50),
    row(section, 'turn p95, wall (run wall ÷ T)', 'ms', d.wallTurnMs.p95, b.wallTurnMs.p95),
  ];
}

function historyRows(h: HistorySize, b: BaselineHistory | undefined): ResultRow[] {
  const section = `History T=${h.turns} K=1, all executions (baseline: JSON of the loop's in-memory state; re-running the loop)`;
  const maxInput = Math.max(...h.executions.map((e) => e.inputPayloadBytes));
  return [
    row(section, 'executions (1 + continue-as-new count)', 'count', h.executions.length),
    row(section, 'history JSON bytes (historyToJSON)', 'bytes', h.jsonBytes, b?.stateBytes),
    row(section, 'history JSON bytes per turn', 'bytes/turn', h.jsonBytesPerTurn, b?.stateBytesPerTurn),
    row(section, 'history events', 'events', h.events),
    row(section, 'history events per turn', 'events/turn', h.eventsPerTurn),
    ...(h.serverBytes !== undefined ? [row(section, 'server history size (describe)', 'bytes', h.serverBytes, b?.stateBytes)] : []),
    row(section, 'events of the largest execution', 'events', h.largestExecutionEvents),
    row(section, 'largest execution input payload (script + carried state; limit 2 MB)', 'bytes', maxInput),
    row(section, 'run wall ÷ T', 'ms', h.wallMs / h.turns, b ? b.rerunMs / b.turns : undefined),
    row(section, 'turn p50, first tenth of turns', 'ms', h.firstTenthTurnP50Ms),
    row(section, 'turn p50, last tenth of turns', 'ms', h.lastTenthTurnP50Ms),
    row(section, 'replay of every execution (Worker.runReplayHistory)', 'ms', h.replayMs, b?.rerunMs),
    row(section, 'replay of the largest execution (crash recovery)', 'ms', h.largestExecutionReplayMs, b?.rerunMs),
  ];
}

/** Builds the report rows from the figures; every durable figure gets its baseline where one exists. */
export function buildRows(plan: BenchPlan, durable: DurableResults, baseline: BaselineResults): ResultRow[] {
  const rows: ResultRow[] = [];
  rows.push(...latencyRows(`S1 latency ${shapeLabel(plan.s1.shape)}, ${plan.s1.repeats} runs`, durable.s1, baseline.s1));
  const s2 = `S2 throughput ${plan.s2.runs} concurrent runs ${shapeLabel(plan.s2.shape)}`;
  rows.push(
    row(s2, 'total wall time', 'ms', durable.s2.wallMs, baseline.s2.wallMs),
    row(s2, 'turns per second', '/s', durable.s2.turnsPerSec, baseline.s2.turnsPerSec),
    row(s2, 'tool calls per second', '/s', durable.s2.toolCallsPerSec, baseline.s2.toolCallsPerSec),
    row(s2, 'turn p50 under load, event log', 'ms', durable.s2.eventTurnMs.p50, baseline.s2.turnMs.p50),
    row(s2, 'turn p95 under load, event log', 'ms', durable.s2.eventTurnMs.p95, baseline.s2.turnMs.p95),
  );
  rows.push(...latencyRows(`S3 fan-out ${shapeLabel(plan.s3.shape)}, ${plan.s3.repeats} runs`, durable.s3, baseline.s3));
  for (const h of durable.history) rows.push(...historyRows(h, baseline.history.find((x) => x.turns === h.turns)));
  const largest = durable.history[durable.history.length - 1];
  if (largest) {
    const section = `Where a turn's time goes: T=${largest.turns} run, server event times (p50 / p95 per task)`;
    const p = largest.phases;
    const phase = (name: string, sm: { p50: number; p95: number }): ResultRow[] => [row(section, `${name} p50`, 'ms', sm.p50), row(section, `${name} p95`, 'ms', sm.p95)];
    rows.push(
      ...phase('activity schedule→start (dispatch)', p.activityScheduleToStartMs),
      ...phase('activity start→complete (no-op tool + RPC)', p.activityStartToCloseMs),
      ...phase('workflow task schedule→start (dispatch)', p.workflowTaskScheduleToStartMs),
      ...phase('workflow task start→complete (workflow code + RPC)', p.workflowTaskStartToCloseMs),
    );
  }
  const m = durable.historyMarginal;
  if (m) {
    const from = baseline.history.find((x) => x.turns === m.fromTurns);
    const to = baseline.history.find((x) => x.turns === m.toTurns);
    const bMarginal = from && to ? (to.stateBytes - from.stateBytes) / (to.turns - from.turns) : undefined;
    const section = `Marginal history per turn, T=${m.fromTurns}→${m.toTurns} (must stay flat)`;
    rows.push(
      row(section, 'JSON bytes per extra turn', 'bytes/turn', m.jsonBytesPerTurn, bMarginal),
      row(section, 'JSON bytes per extra turn, without started events', 'bytes/turn', m.jsonBytesPerTurnExcludingStarted, bMarginal),
      row(section, 'events per extra turn', 'events/turn', m.eventsPerTurn),
      ...(m.serverBytesPerTurn !== undefined ? [row(section, 'server bytes per extra turn', 'bytes/turn', m.serverBytesPerTurn, bMarginal)] : []),
    );
  }
  return rows;
}
