import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { readAllEvents, runToCompletion, turnDurationsMs, type DurableContext } from './durable';
import { percentile, timed } from './stats';
import type { RunShape } from './workload';

type History = Awaited<ReturnType<ReturnType<DurableContext['client']['workflow']['getHandle']>['fetchHistory']>>;

/** Size of one run's history, as fetched from the server. */
export interface HistorySize {
  readonly turns: number;
  /** Bytes of the history serialized with historyToJSON. */
  readonly jsonBytes: number;
  readonly events: number;
  readonly jsonBytesPerTurn: number;
  readonly eventsPerTurn: number;
  /** The server's own history size (protobuf bytes), from describe(). */
  readonly serverBytes: number | undefined;
  /** JSON bytes of the WorkflowExecutionStarted event: it carries the run input, i.e. the whole script, so it grows with T. */
  readonly startedEventJsonBytes: number;
  readonly wallMs: number;
  /** Median duration of the first and the last tenth of the turns (event log): does a turn slow down as history grows? */
  readonly firstTenthTurnP50Ms: number;
  readonly lastTenthTurnP50Ms: number;
  /** Worker.runReplayHistory of this history (includes creating the replay worker). */
  readonly replayMs: number;
}

/** Growth of history between two run lengths: what one more turn costs. */
export interface HistoryMarginal {
  readonly fromTurns: number;
  readonly toTurns: number;
  readonly jsonBytesPerTurn: number;
  readonly eventsPerTurn: number;
  readonly serverBytesPerTurn: number | undefined;
  /** Same, without the WorkflowExecutionStarted event (whose input, the script, grows with T). */
  readonly jsonBytesPerTurnExcludingInput: number;
}

async function fetchHistory(ctx: DurableContext, workflowId: string): Promise<History> {
  return ctx.client.workflow.getHandle(workflowId).fetchHistory();
}

/** Runs one K=1 run of `turns` turns, measures its history and replays it. */
export async function measureHistory(ctx: DurableContext, turns: number): Promise<HistorySize> {
  const shape: RunShape = { turns, callsPerTurn: 1 };
  const workflowId = `${ctx.idPrefix}-history-${turns}`;
  const run = await runToCompletion(ctx, shape, workflowId);
  ctx.progress(`history T=${turns}: run done in ${run.wallMs.toFixed(0)} ms; fetching history`);
  const history = await fetchHistory(ctx, workflowId);
  let jsonText = '';
  try { jsonText = historyToJSON(history); } catch (err) { console.error('DEBUG', Object.keys(require.cache).filter((k) => k.includes('protobufjs')), err); throw err; }
  const jsonBytes = Buffer.byteLength(jsonText, 'utf8');
  const events = history.events?.length ?? 0;
  const description = await ctx.client.workflow.getHandle(workflowId).describe();
  const durations = turnDurationsMs(await readAllEvents(ctx.agents, workflowId));
  const tenth = Math.max(1, Math.floor(durations.length / 10));
  const replay = await timed(() => Worker.runReplayHistory({ workflowBundle: ctx.workflowBundle }, history, workflowId));
  ctx.progress(`history T=${turns}: ${jsonBytes} JSON bytes, ${events} events; replay ${replay.ms.toFixed(0)} ms`);
  return {
    turns,
    jsonBytes,
    events,
    jsonBytesPerTurn: jsonBytes / turns,
    eventsPerTurn: events / turns,
    serverBytes: description.historySize,
    startedEventJsonBytes: Buffer.byteLength(historyToJSON({ events: history.events?.slice(0, 1) ?? [] }), 'utf8'),
    wallMs: run.wallMs,
    firstTenthTurnP50Ms: percentile(durations.slice(0, tenth), 0.5),
    lastTenthTurnP50Ms: percentile(durations.slice(-tenth), 0.5),
    replayMs: replay.ms,
  };
}

/** Per-turn growth between the smallest and largest measured T (undefined with fewer than two). */
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
    eventsPerTurn: (to.events - from.events) / dt,
    serverBytesPerTurn: server,
    jsonBytesPerTurnExcludingInput: (to.jsonBytes - to.startedEventJsonBytes - (from.jsonBytes - from.startedEventJsonBytes)) / dt,
  };
}
