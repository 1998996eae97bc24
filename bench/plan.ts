import type { RunShape } from './workload';

/** Sizes of the replay-cost measurement (replay-cost.ts). */
export interface ReplayCostPlan {
  readonly shortTurns: number;
  readonly longTurns: number;
  /** Replays of the short history per round; the long one gets proportionally fewer (at least `minLongReplays`). */
  readonly replays: number;
  /** Enough that creating the replay worker (parsing the bundle and its source map) is spread thin. */
  readonly minLongReplays: number;
  readonly rounds: number;
  /** Replays of the fan-out history per round (see ReplayCosts.fanOut). */
  readonly fanOutReplays: number;
}

/** Sizes of one benchmark invocation. */
export interface BenchPlan {
  readonly mode: 'full' | 'latency' | 'smoke';
  /**
   * Runs before measuring, interleaved across systems: worker start-up is not counted, and each
   * system's code runs often enough for V8 to optimise it, as it is in a worker that has been up
   * a while. Without them, the first latency runs paid for compiling, and more so for the system
   * with more code.
   */
  readonly warmup: readonly { readonly shape: RunShape; readonly runs: number }[];
  /** S1 latency: one run at a time, repeated. */
  readonly s1: { readonly shape: RunShape; readonly repeats: number };
  /** S2 throughput: this many runs started at once, in `rounds` batches per system interleaved (the report gives the median batch). */
  readonly s2: { readonly shape: RunShape; readonly runs: number; readonly rounds: number };
  /** S3 fan-out: one run at a time with many calls per turn, repeated. */
  readonly s3: { readonly shape: RunShape; readonly repeats: number };
  /** T values of the history-size runs (K = 1). */
  readonly historyTurns: readonly number[];
  /** Replays of each history-size run, interleaved across systems; the report gives the median. */
  readonly historyReplays: number;
  /** Replay cost: a short and a long run replayed many times (per-run start, per-turn CPU). */
  readonly replayCost: ReplayCostPlan;
  /** Heap per cached run: this many runs kept waiting in a worker's cache. */
  readonly cachedHeapRuns: number;
}

/** The full benchmark: finishes within 10 minutes on 2 cores. */
export const fullPlan: BenchPlan = {
  mode: 'full',
  warmup: [
    { shape: { turns: 20, callsPerTurn: 1 }, runs: 10 },
    { shape: { turns: 5, callsPerTurn: 16 }, runs: 2 },
  ],
  s1: { shape: { turns: 20, callsPerTurn: 1 }, repeats: 15 },
  s2: { shape: { turns: 10, callsPerTurn: 2 }, runs: 50, rounds: 5 },
  s3: { shape: { turns: 5, callsPerTurn: 16 }, repeats: 11 },
  historyTurns: [10, 100, 1000],
  historyReplays: 3,
  replayCost: { shortTurns: 1, longTurns: 50, replays: 200, minLongReplays: 20, rounds: 3, fanOutReplays: 20 },
  cachedHeapRuns: 100,
};

/** `--smoke`: tiny sizes that only prove the script still works (CI). */
export const smokePlan: BenchPlan = {
  mode: 'smoke',
  warmup: [{ shape: { turns: 1, callsPerTurn: 1 }, runs: 1 }],
  s1: { shape: { turns: 3, callsPerTurn: 1 }, repeats: 2 },
  s2: { shape: { turns: 2, callsPerTurn: 2 }, runs: 4, rounds: 1 },
  s3: { shape: { turns: 2, callsPerTurn: 4 }, repeats: 1 },
  historyTurns: [5],
  historyReplays: 1,
  replayCost: { shortTurns: 1, longTurns: 3, replays: 3, minLongReplays: 3, rounds: 1, fanOutReplays: 2 },
  cachedHeapRuns: 5,
};

/**
 * `--latency`: S1 and S2 at full size (with the full warm-up), everything else at smoke size.
 * For before/after pairs of a change on the run path: about a third of the full benchmark.
 */
export const latencyPlan: BenchPlan = { ...smokePlan, mode: 'latency', warmup: fullPlan.warmup, s1: fullPlan.s1, s2: fullPlan.s2 };
