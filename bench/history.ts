import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import type { BenchContext } from './scenarios';
import { turnPhases, turnSpansFromHistoryMs, type FetchedHistory, type TurnPhases } from './phases';
import { percentile, timed } from './stats';
import type { LoopSystem } from './systems';
import type { RunShape } from './workload';

/** One execution of a run's continue-as-new chain. */
export interface ExecutionSize {
  readonly runId: string;
  readonly events: number;
  /** Bytes of this execution's history serialized with historyToJSON. */
  readonly jsonBytes: number;
  /** The server's own history size (protobuf bytes), from describe(). */
  readonly serverBytes: number | undefined;
  /**
   * JSON bytes of the WorkflowExecutionStarted event: the run input (the whole script) and,
   * after continue-as-new, the carried state. Grows with T.
   */
  readonly startedEventJsonBytes: number;
  /** Raw bytes of the input payload (what Temporal's 2 MB payload limit applies to). */
  readonly inputPayloadBytes: number;
  /** Bytes of every payload's data in this execution (inputs, results, markers): what the workflow itself put in history. */
  readonly payloadBytes: number;
  /** Of those, the WorkflowExecutionStarted event's: the run input (the script) and, after continue-as-new, the carried state. */
  readonly startedPayloadBytes: number;
  /**
   * Worker.runReplayHistory of this execution (includes creating the replay worker, as a crash
   * recovery on a new worker does): the median of the plan's replays, interleaved with the other
   * systems' replays of the same T.
   */
  readonly replayMs: number;
  /** CPU time (user + system) of this process during that replay (median, as replayMs). */
  readonly replayCpuMs: number;
}

/** An execution measured but not replayed yet. */
type ExecutionSizes = Omit<ExecutionSize, 'replayMs' | 'replayCpuMs'>;

/** One run's history, run and fetched, with the replay samples taken so far (see {@link replayRecorded}). */
export interface RecordedHistory {
  readonly system: LoopSystem;
  readonly turns: number;
  readonly workflowId: string;
  readonly wallMs: number;
  readonly chain: readonly { readonly runId: string; readonly history: FetchedHistory }[];
  readonly sizes: readonly ExecutionSizes[];
  /** Per execution: wall and CPU ms of each replay. */
  readonly replays: readonly { readonly ms: number[]; readonly cpuMs: number[] }[];
}

/** Size of one run's history (every execution of it), as fetched from the server. */
export interface HistorySize {
  readonly turns: number;
  readonly system: LoopSystem['name'];
  readonly executions: ExecutionSize[];
  /** Totals over every execution. */
  readonly jsonBytes: number;
  readonly events: number;
  readonly serverBytes: number | undefined;
  readonly startedEventJsonBytes: number;
  readonly jsonBytesPerTurn: number;
  readonly payloadBytes: number;
  readonly payloadBytesPerTurn: number;
  /** Payload bytes per turn without the started events: what the turns themselves write (tool inputs, results, markers). */
  readonly payloadBytesPerTurnExcludingStarted: number;
  readonly eventsPerTurn: number;
  /** The largest execution: what a crash recovery (or a query on a closed run) replays. */
  readonly largestExecutionEvents: number;
  readonly largestExecutionReplayMs: number;
  readonly largestExecutionReplayCpuMs: number;
  /** Sum of the replays of every execution. */
  readonly replayMs: number;
  readonly replayCpuMs: number;
  readonly wallMs: number;
  /** Median turn duration of the first and the last tenth of the turns: does a turn slow down as the run grows? */
  readonly firstTenthTurnP50Ms: number;
  readonly lastTenthTurnP50Ms: number;
  /** Where a turn's time goes, from the server's event times (undefined without activity tasks: local activities). */
  readonly phases: TurnPhases | undefined;
}

/** Growth of history between two run lengths: what one more turn costs. */
export interface HistoryMarginal {
  readonly fromTurns: number;
  readonly toTurns: number;
  readonly jsonBytesPerTurn: number;
  readonly payloadBytesPerTurn: number;
  /** Same, without the started events (the script, and the state carried by continue-as-new). */
  readonly payloadBytesPerTurnExcludingStarted: number;
  readonly eventsPerTurn: number;
  readonly serverBytesPerTurn: number | undefined;
  /** Same, without the WorkflowExecutionStarted events (the script, and the state carried by continue-as-new). */
  readonly jsonBytesPerTurnExcludingStarted: number;
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** Every execution of a run, following continue-as-new from the first. */
async function fetchChain(ctx: { client: Client }, workflowId: string, firstRunId: string): Promise<{ runId: string; history: FetchedHistory }[]> {
  const chain: { runId: string; history: FetchedHistory }[] = [];
  for (let runId: string | undefined = firstRunId; runId; ) {
    const history: FetchedHistory = await ctx.client.workflow.getHandle(workflowId, runId).fetchHistory();
    chain.push({ runId, history });
    const last: NonNullable<FetchedHistory['events']>[number] | undefined = history.events?.[history.events.length - 1];
    runId = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return chain;
}

/** Bytes of the data of every payload found anywhere in a value (an event, a history). */
export function payloadDataBytes(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  if (value instanceof Uint8Array) return 0;
  if (Array.isArray(value)) return sum(value.map(payloadDataBytes));
  if ('metadata' in value && 'data' in value && value.data instanceof Uint8Array) return value.data.length;
  return sum(Object.values(value).map(payloadDataBytes));
}

async function measureExecution(ctx: BenchContext, workflowId: string, runId: string, history: FetchedHistory): Promise<ExecutionSizes> {
  const description = await ctx.client.workflow.getHandle(workflowId, runId).describe();
  return {
    runId,
    events: history.events?.length ?? 0,
    jsonBytes: Buffer.byteLength(historyToJSON(history), 'utf8'),
    serverBytes: description.historySize,
    startedEventJsonBytes: Buffer.byteLength(historyToJSON({ events: history.events?.slice(0, 1) ?? [] }), 'utf8'),
    inputPayloadBytes: sum(
      (history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? []).map((p) => p.data?.length ?? 0),
    ),
    payloadBytes: payloadDataBytes(history.events ?? []),
    startedPayloadBytes: payloadDataBytes(history.events?.[0]),
  };
}

/** Runs one K=1 run of `turns` turns on a system and measures its history (all executions); replays come later. */
export async function recordHistory(ctx: BenchContext, system: LoopSystem, turns: number): Promise<RecordedHistory> {
  const shape: RunShape = { turns, callsPerTurn: 1 };
  const workflowId = `${ctx.idPrefix}-${system.name}-history-${turns}`;
  const run = await system.run(shape, workflowId);
  ctx.progress(`history T=${turns} ${system.name}: run done in ${run.wallMs.toFixed(0)} ms; fetching its history`);
  const chain = await fetchChain(ctx, workflowId, run.firstRunId);
  const sizes: ExecutionSizes[] = [];
  for (const { runId, history } of chain) sizes.push(await measureExecution(ctx, workflowId, runId, history));
  return { system, turns, workflowId, wallMs: run.wallMs, chain, sizes, replays: chain.map(() => ({ ms: [], cpuMs: [] })) };
}

/**
 * Replays every execution of the recorded histories `rounds` times, each time in a fresh replay
 * worker (as a crash recovery on another worker does), interleaved: round r replays every
 * system's histories before round r + 1 replays any, so a change in the machine's load reaches
 * every system alike.
 */
export async function replayRecorded(ctx: BenchContext, recorded: readonly RecordedHistory[], rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const r of recorded) {
      for (const [i, { history }] of r.chain.entries()) {
        const cpuBefore = process.cpuUsage();
        const replay = await timed(() => Worker.runReplayHistory({ workflowBundle: r.system.workflowBundle }, history, r.workflowId));
        const cpu = process.cpuUsage(cpuBefore);
        r.replays[i]!.ms.push(replay.ms);
        r.replays[i]!.cpuMs.push((cpu.user + cpu.system) / 1000);
      }
    }
    ctx.progress(`history replays: round ${round + 1} of ${rounds} done`);
  }
}

/** The history's sizes, and the median of its replays. */
export function summarizeHistory(ctx: BenchContext, recorded: RecordedHistory): HistorySize {
  const { system, turns, chain } = recorded;
  const executions: ExecutionSize[] = recorded.sizes.map((size, i) => {
    const samples = recorded.replays[i]!;
    if (samples.ms.length === 0) throw new Error(`history T=${turns} ${system.name}: execution ${size.runId} was never replayed`);
    return { ...size, replayMs: percentile(samples.ms, 0.5), replayCpuMs: percentile(samples.cpuMs, 0.5) };
  });
  const histories = chain.map((c) => c.history);
  const durations = turnSpansFromHistoryMs(histories);
  const tenth = Math.max(1, Math.floor(durations.length / 10));
  const serverSizes = executions.map((e) => e.serverBytes);
  const jsonBytes = sum(executions.map((e) => e.jsonBytes));
  const events = sum(executions.map((e) => e.events));
  const largest = executions.reduce((a, b) => (b.events > a.events ? b : a));
  const payloadBytes = sum(executions.map((e) => e.payloadBytes));
  const startedPayloadBytes = sum(executions.map((e) => e.startedPayloadBytes));
  const hasActivityTasks = histories.some((h) => (h.events ?? []).some((e) => e.activityTaskStartedEventAttributes));
  const result: HistorySize = {
    turns,
    system: system.name,
    executions,
    jsonBytes,
    events,
    serverBytes: serverSizes.every((s) => s !== undefined) ? sum(serverSizes.map((s) => s ?? 0)) : undefined,
    startedEventJsonBytes: sum(executions.map((e) => e.startedEventJsonBytes)),
    jsonBytesPerTurn: jsonBytes / turns,
    payloadBytes,
    payloadBytesPerTurn: payloadBytes / turns,
    payloadBytesPerTurnExcludingStarted: (payloadBytes - startedPayloadBytes) / turns,
    eventsPerTurn: events / turns,
    largestExecutionEvents: largest.events,
    largestExecutionReplayMs: largest.replayMs,
    largestExecutionReplayCpuMs: largest.replayCpuMs,
    replayMs: sum(executions.map((e) => e.replayMs)),
    replayCpuMs: sum(executions.map((e) => e.replayCpuMs)),
    wallMs: recorded.wallMs,
    firstTenthTurnP50Ms: durations.length ? percentile(durations.slice(0, tenth), 0.5) : 0,
    lastTenthTurnP50Ms: durations.length ? percentile(durations.slice(-tenth), 0.5) : 0,
    phases: hasActivityTasks ? turnPhases(histories) : undefined,
  };
  ctx.progress(
    `history T=${turns} ${system.name}: ${executions.length} execution(s), ${jsonBytes} JSON bytes, ${events} events; ` +
      `replay ${result.replayMs.toFixed(0)} ms (CPU ${result.replayCpuMs.toFixed(0)} ms, median of ${recorded.replays[0]?.ms.length ?? 0})`,
  );
  return result;
}

/** Per-turn growth between the two largest measured T (undefined with fewer than two). */
export function historyMarginal(sizes: readonly HistorySize[]): HistoryMarginal | undefined {
  const sorted = [...sizes].sort((a, b) => a.turns - b.turns);
  const from = sorted.length >= 2 ? sorted[sorted.length - 2] : undefined;
  const to = sorted[sorted.length - 1];
  if (!from || !to) return undefined;
  const dt = to.turns - from.turns;
  const server = from.serverBytes !== undefined && to.serverBytes !== undefined ? (to.serverBytes - from.serverBytes) / dt : undefined;
  return {
    fromTurns: from.turns,
    toTurns: to.turns,
    jsonBytesPerTurn: (to.jsonBytes - from.jsonBytes) / dt,
    payloadBytesPerTurn: (to.payloadBytes - from.payloadBytes) / dt,
    payloadBytesPerTurnExcludingStarted: (to.payloadBytesPerTurnExcludingStarted * to.turns - from.payloadBytesPerTurnExcludingStarted * from.turns) / dt,
    eventsPerTurn: (to.events - from.events) / dt,
    serverBytesPerTurn: server,
    jsonBytesPerTurnExcludingStarted: (to.jsonBytes - to.startedEventJsonBytes - (from.jsonBytes - from.startedEventJsonBytes)) / dt,
  };
}
