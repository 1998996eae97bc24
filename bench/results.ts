import type { CachedHeap } from './cached-heap';
import type { HistoryMarginal, HistorySize } from './history';
import type { MachineFacts } from './machine';
import type { ReplayCosts } from './replay-cost';
import type { BenchPlan } from './plan';
import type { LatencyResult, ThroughputResult } from './scenarios';
import type { SystemName } from './systems';
import type { WorkerTuning } from './worker';

/** Every figure of one system in one invocation. */
export interface SystemResults {
  readonly s1: LatencyResult;
  readonly s2: ThroughputResult;
  readonly s3: LatencyResult;
  readonly history: HistorySize[];
  readonly historyMarginal: HistoryMarginal | undefined;
  /** Per-run start and per-turn CPU of the workflow code, from replays (absent in older results). */
  readonly replayCost?: ReplayCosts | undefined;
  /** Heap per cached waiting run (absent in older results and for the local systems). */
  readonly cachedHeap?: CachedHeap | undefined;
}

/** The document written to bench/results/: facts, sizes, every figure. */
export interface BenchResults {
  readonly startedAt: string;
  readonly durationMs: number;
  readonly plan: BenchPlan;
  readonly machine: MachineFacts;
  /** Load averages (1, 5, 15 min) when the benchmark started and ended. */
  readonly load: { readonly atStart: number[]; readonly atEnd: number[] };
  /** Worker options of the durable-agents worker given with --worker-options (empty: createAgentWorker defaults). */
  readonly workerTuning: WorkerTuning;
  readonly systems: Record<SystemName, SystemResults>;
  readonly rows: ResultRow[];
}

/**
 * One line of the report: a figure of each system and the cost of durable-agents relative to
 * each reference. A cost ratio above 1 means durable-agents is slower / larger: durable-agents
 * ÷ reference for times and sizes, reference ÷ durable-agents for rates (unit `/s`).
 */
export interface ResultRow {
  readonly section: string;
  readonly metric: string;
  readonly unit: 'ms' | '/s' | 'bytes' | 'events' | 'bytes/turn' | 'events/turn' | 'ms/turn' | 'count';
  readonly values: Record<SystemName, number | undefined>;
  readonly costVsRaw: number | undefined;
  /** durable-agents-local against temporal-raw-local: both run their calls as local activities. */
  readonly costLocalVsRawLocal: number | undefined;
}

type Pick3<T> = (r: SystemResults) => T;

function costRatio(unit: ResultRow['unit'], durable: number | undefined, reference: number | undefined): number | undefined {
  if (durable === undefined || reference === undefined || durable <= 0 || reference <= 0) return undefined;
  return unit === '/s' ? reference / durable : durable / reference;
}

/** Builds rows from figures picked out of each system's results. */
function rowBuilder(systems: Record<SystemName, SystemResults>) {
  return (section: string, metric: string, unit: ResultRow['unit'], pick: Pick3<number | undefined>, compare = true): ResultRow => {
    const values = {
      'durable-agents': pick(systems['durable-agents']),
      'durable-agents-local': pick(systems['durable-agents-local']),
      'temporal-raw': pick(systems['temporal-raw']),
      'temporal-raw-local': pick(systems['temporal-raw-local']),
    };
    return {
      section,
      metric,
      unit,
      values,
      costVsRaw: compare ? costRatio(unit, values['durable-agents'], values['temporal-raw']) : undefined,
      costLocalVsRawLocal: compare ? costRatio(unit, values['durable-agents-local'], values['temporal-raw-local']) : undefined,
    };
  };
}

function shapeLabel(s: { turns: number; callsPerTurn: number }): string {
  return `T=${s.turns} K=${s.callsPerTurn}`;
}

/** Builds the report rows: every figure of durable-agents next to temporal-raw and temporal-raw-local. */
export function buildRows(plan: BenchPlan, systems: Record<SystemName, SystemResults>): ResultRow[] {
  const row = rowBuilder(systems);
  const rows: ResultRow[] = [];
  const latency = (section: string, pick: Pick3<LatencyResult>): ResultRow[] => [
    row(section, 'turn p50, workflow clock', 'ms', (r) => pick(r).eventTurnMs.p50),
    row(section, 'turn p95, workflow clock', 'ms', (r) => pick(r).eventTurnMs.p95),
    row(section, 'turn p50, wall (run wall ÷ T)', 'ms', (r) => pick(r).wallTurnMs.p50),
    row(section, 'turn p95, wall (run wall ÷ T)', 'ms', (r) => pick(r).wallTurnMs.p95),
  ];
  rows.push(...latency(`S1 latency ${shapeLabel(plan.s1.shape)}, ${plan.s1.repeats} runs each, interleaved`, (r) => r.s1));
  const s2 = `S2 throughput ${plan.s2.runs} concurrent runs ${shapeLabel(plan.s2.shape)}, one system at a time${plan.s2.rounds > 1 ? `; median of ${plan.s2.rounds} rounds, interleaved` : ''}`;
  rows.push(
    row(s2, 'turns per second', '/s', (r) => r.s2.turnsPerSec),
    row(s2, 'tool calls per second', '/s', (r) => r.s2.toolCallsPerSec),
    row(s2, 'total wall time', 'ms', (r) => r.s2.wallMs),
    row(s2, 'turn p50 under load, workflow clock', 'ms', (r) => r.s2.eventTurnMs.p50),
    row(s2, 'turn p95 under load, workflow clock', 'ms', (r) => r.s2.eventTurnMs.p95),
    row(s2, 'CPU per turn, bench process (client, workers)', 'ms/turn', (r) => r.s2.cpuMsPerTurn?.bench),
    row(s2, 'CPU per turn, dev server', 'ms/turn', (r) => r.s2.cpuMsPerTurn?.server),
    row(s2, 'CPU per turn, all processes', 'ms/turn', (r) => (r.s2.cpuMsPerTurn?.server === undefined ? undefined : r.s2.cpuMsPerTurn.bench + r.s2.cpuMsPerTurn.server)),
  );
  rows.push(...latency(`S3 fan-out ${shapeLabel(plan.s3.shape)}, ${plan.s3.repeats} runs each, interleaved`, (r) => r.s3));
  plan.historyTurns.forEach((turns, i) => {
    const h: Pick3<HistorySize> = (r) => {
      const found = r.history[i];
      if (!found || found.turns !== turns) throw new Error(`no history of ${turns} turns`);
      return found;
    };
    const section = `History T=${turns} K=1, all executions; replays: median of ${plan.historyReplays}, interleaved, each in a fresh replay worker`;
    rows.push(
      row(section, 'executions (1 + continue-as-new count)', 'count', (r) => h(r).executions.length, false),
      row(section, 'payload bytes per turn (data of every payload)', 'bytes/turn', (r) => h(r).payloadBytesPerTurn),
      row(section, 'payload bytes per turn, without started events (input, carried state)', 'bytes/turn', (r) => h(r).payloadBytesPerTurnExcludingStarted),
      row(section, 'history JSON bytes per turn (historyToJSON)', 'bytes/turn', (r) => h(r).jsonBytesPerTurn),
      row(section, 'server history size (describe)', 'bytes', (r) => h(r).serverBytes),
      row(section, 'history events per turn', 'events/turn', (r) => h(r).eventsPerTurn),
      row(section, 'events of the largest execution', 'events', (r) => h(r).largestExecutionEvents),
      row(section, 'largest execution input payload (limit 2 MB)', 'bytes', (r) => Math.max(...h(r).executions.map((e) => e.inputPayloadBytes)), false),
      row(section, 'run wall ÷ T', 'ms', (r) => h(r).wallMs / turns),
      row(section, 'turn p50, first tenth of turns (history)', 'ms', (r) => h(r).phases && h(r).firstTenthTurnP50Ms),
      row(section, 'turn p50, last tenth of turns (history)', 'ms', (r) => h(r).phases && h(r).lastTenthTurnP50Ms),
      row(section, 'replay of every execution, wall', 'ms', (r) => h(r).replayMs),
      row(section, 'replay of every execution, CPU', 'ms', (r) => h(r).replayCpuMs),
      row(section, 'replay of the largest execution (crash recovery), CPU', 'ms', (r) => h(r).largestExecutionReplayCpuMs),
    );
  });
  const last = plan.historyTurns.length - 1;
  if (last >= 0) {
    const section = `Where a turn's time goes: T=${plan.historyTurns[last]} run, server event times (p50 / p95 per task)`;
    const phase = (name: string, pick: (p: NonNullable<HistorySize['phases']>) => { p50: number; p95: number }): ResultRow[] => [
      row(section, `${name} p50`, 'ms', (r) => { const p = r.history[last]?.phases; return p && pick(p).p50; }),
      row(section, `${name} p95`, 'ms', (r) => { const p = r.history[last]?.phases; return p && pick(p).p95; }),
    ];
    rows.push(
      ...phase('activity schedule→start (dispatch)', (p) => p.activityScheduleToStartMs),
      ...phase('activity start→complete (no-op tool + RPC)', (p) => p.activityStartToCloseMs),
      ...phase('workflow task schedule→start (dispatch)', (p) => p.workflowTaskScheduleToStartMs),
      ...phase('workflow task start→complete (workflow code + RPC)', (p) => p.workflowTaskStartToCloseMs),
    );
  }
  const m = systems['durable-agents'].historyMarginal;
  if (m) {
    const section = `Marginal history per turn, T=${m.fromTurns}→${m.toTurns} (must stay flat)`;
    rows.push(
      row(section, 'payload bytes per extra turn', 'bytes/turn', (r) => r.historyMarginal?.payloadBytesPerTurn),
      row(section, 'payload bytes per extra turn, without started events', 'bytes/turn', (r) => r.historyMarginal?.payloadBytesPerTurnExcludingStarted),
      row(section, 'JSON bytes per extra turn', 'bytes/turn', (r) => r.historyMarginal?.jsonBytesPerTurn),
      row(section, 'JSON bytes per extra turn, without started events', 'bytes/turn', (r) => r.historyMarginal?.jsonBytesPerTurnExcludingStarted),
      row(section, 'events per extra turn', 'events/turn', (r) => r.historyMarginal?.eventsPerTurn),
      row(section, 'server bytes per extra turn', 'bytes/turn', (r) => r.historyMarginal?.serverBytesPerTurn),
    );
  }
  const rc = plan.replayCost;
  const section = `Workflow code CPU: a ${rc.shortTurns}- and a ${rc.longTurns}-turn history, each replayed many times in one replay worker, median of ${rc.rounds} interleaved rounds`;
  rows.push(
    row(section, `${rc.shortTurns}-turn run (per-run start + ${rc.shortTurns} turn${rc.shortTurns === 1 ? '' : 's'}), CPU per replay`, 'ms', (r) => r.replayCost?.short.cpuMsPerReplayMedian),
    row(section, `${rc.longTurns}-turn run, CPU per replay`, 'ms', (r) => r.replayCost?.long.cpuMsPerReplayMedian),
    row(section, `per turn, (${rc.longTurns}-turn − ${rc.shortTurns}-turn) ÷ ${rc.longTurns - rc.shortTurns}`, 'ms', (r) => r.replayCost?.cpuMsPerTurn),
    row(section, `promises created by workflow code, ${rc.shortTurns}-turn run`, 'count', (r) => r.replayCost?.promises?.short),
    row(section, 'promises created by workflow code, per turn', 'count', (r) => r.replayCost?.promises?.perTurn),
    row(section, `fan-out run (${plan.s3.shape.turns} turns × ${plan.s3.shape.callsPerTurn} calls), CPU per replay`, 'ms', (r) => r.replayCost?.fanOut?.cpuMsPerReplayMedian),
    row(section, `per extra call of the fan-out run (its turn's share included)`, 'ms', (r) => r.replayCost?.fanOut?.cpuMsPerExtraCall),
    row(section, 'promises created by workflow code, per extra call of the fan-out run', 'count', (r) => r.replayCost?.fanOut?.promisesPerExtraCall),
  );
  rows.push(
    row(
      `Memory: heap a worker keeps per cached run waiting for a human (${plan.cachedHeapRuns} runs after one turn, workflows on the main thread)`,
      'heap per cached run',
      'bytes',
      (r) => r.cachedHeap?.bytesPerRun,
    ),
  );
  return rows;
}
