import { runBaselineLoop } from './baseline';
import type { BenchPlan } from './plan';
import { percentile, summarize, timed, type Summary } from './stats';
import type { RunShape } from './workload';

/** Baseline counterpart of a latency scenario. */
export interface BaselineLatency {
  readonly shape: RunShape;
  readonly runs: number;
  readonly turnMs: Summary;
  /** Whole loop time divided by T. */
  readonly wallTurnMs: Summary;
}

/** Baseline counterpart of the throughput scenario: N loops at once in one event loop. */
export interface BaselineThroughput {
  readonly shape: RunShape;
  readonly runs: number;
  readonly repeats: number;
  /** Median wall time of the N concurrent loops over the repeats. */
  readonly wallMs: number;
  readonly turnsPerSec: number;
  readonly toolCallsPerSec: number;
  /** Turn durations of all loops of all repeats, under that concurrency. */
  readonly turnMs: Summary;
}

/** Baseline counterpart of a history-size run: in-memory state and time to re-execute the loop. */
export interface BaselineHistory {
  readonly turns: number;
  readonly stateBytes: number;
  readonly stateBytesPerTurn: number;
  /** Median time of executing the whole loop again (what "replay" costs without durability). */
  readonly rerunMs: number;
}

/** All baseline figures of one invocation. */
export interface BaselineResults {
  readonly s1: BaselineLatency;
  readonly s2: BaselineThroughput;
  readonly s3: BaselineLatency;
  readonly history: BaselineHistory[];
}

async function latency(shape: RunShape, runs: number): Promise<BaselineLatency> {
  const turnMs: number[] = [];
  const wallTurnMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const run = await runBaselineLoop(shape);
    turnMs.push(...run.turnMs);
    wallTurnMs.push(run.totalMs / shape.turns);
  }
  return { shape, runs, turnMs: summarize(turnMs), wallTurnMs: summarize(wallTurnMs) };
}

async function throughput(shape: RunShape, runs: number, repeats: number): Promise<BaselineThroughput> {
  const walls: number[] = [];
  const turnMs: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const { value, ms } = await timed(() => Promise.all(Array.from({ length: runs }, () => runBaselineLoop(shape))));
    walls.push(ms);
    for (const run of value) turnMs.push(...run.turnMs);
  }
  const wallMs = percentile(walls, 0.5);
  const turns = runs * shape.turns;
  return {
    shape,
    runs,
    repeats,
    wallMs,
    turnsPerSec: turns / (wallMs / 1000),
    toolCallsPerSec: (turns * shape.callsPerTurn) / (wallMs / 1000),
    turnMs: summarize(turnMs),
  };
}

async function history(turns: number, repeats: number): Promise<BaselineHistory> {
  const times: number[] = [];
  let stateBytes = 0;
  for (let i = 0; i < repeats; i++) {
    const run = await runBaselineLoop({ turns, callsPerTurn: 1 });
    times.push(run.totalMs);
    stateBytes = run.stateBytes;
  }
  return { turns, stateBytes, stateBytesPerTurn: stateBytes / turns, rerunMs: percentile(times, 0.5) };
}

/**
 * Measures the in-process baseline of every scenario in the plan, after a JIT warm-up.
 * Repeats are `plan.baselineRepeats` (fewer for the large loops) because each run is fast.
 */
export async function measureBaseline(plan: BenchPlan, progress: (line: string) => void): Promise<BaselineResults> {
  progress(`baseline: warming up, then ${plan.baselineRepeats} repeats per figure`);
  for (let i = 0; i < plan.baselineRepeats; i++) await runBaselineLoop(plan.s1.shape);
  const s1 = await latency(plan.s1.shape, plan.baselineRepeats);
  const s2 = await throughput(plan.s2.shape, plan.s2.runs, Math.max(3, Math.round(plan.baselineRepeats / 10)));
  const s3 = await latency(plan.s3.shape, plan.baselineRepeats);
  const sizes: BaselineHistory[] = [];
  for (const turns of plan.historyTurns) sizes.push(await history(turns, Math.max(3, Math.round((plan.baselineRepeats * 20) / turns))));
  progress('baseline: done');
  return { s1, s2, s3, history: sizes };
}
