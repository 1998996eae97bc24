import { promiseHooks } from 'node:v8';
import { Worker } from '@temporalio/worker';
import type { ReplayCostPlan } from './plan';
import type { BenchContext } from './scenarios';
import type { FetchedHistory } from './phases';
import { percentile } from './stats';
import type { LoopSystem, SystemName } from './systems';
import type { RunShape } from './workload';

/**
 * What the worker's CPU pays to run a workflow's code, apart from the server: one history
 * replayed many times in one replay worker, so creating that worker is spread over the
 * replays. A 1-turn run is mostly the per-run start (evaluating the bundle's modules for a new
 * execution, parsing the input, building the schemas a run uses); the difference to a longer
 * run, divided by the extra turns, is what each turn costs the workflow thread.
 */
export interface ReplayCost {
  readonly turns: number;
  readonly replaysPerRound: number;
  /** CPU (user + system of this process) per replay, one figure per round. */
  readonly cpuMsPerReplay: readonly number[];
  /** Median of the rounds. */
  readonly cpuMsPerReplayMedian: number;
}

/** Per-run start and per-turn CPU, from the replay costs of a short and a long run. */
export interface ReplayCosts {
  readonly short: ReplayCost;
  readonly long: ReplayCost;
  /** (long − short) ÷ (its extra turns). */
  readonly cpuMsPerTurn: number;
  /**
   * Promises the workflow code creates in one replay of each history, and per extra turn.
   * Exact, unlike CPU: the SDK's promise hook captures a stack (with source-map lookups) for
   * each one, which makes them a large part of the workflow thread's cost.
   */
  readonly promises?: { readonly short: number; readonly long: number; readonly perTurn: number };
  /**
   * A fan-out run (the S3 shape, T turns of K calls), against the short run: what each extra call
   * costs, its turn's share included. Promises here show what joining K parallel calls costs.
   */
  readonly fanOut?: {
    readonly shape: RunShape;
    readonly replaysPerRound: number;
    readonly cpuMsPerReplay: readonly number[];
    readonly cpuMsPerReplayMedian: number;
    /** (fan-out − short) ÷ (its extra calls). */
    readonly cpuMsPerExtraCall: number;
    readonly promises: number;
    readonly promisesPerExtraCall: number;
  };
}

async function recordHistory(ctx: BenchContext, system: LoopSystem, shape: RunShape): Promise<{ workflowId: string; history: FetchedHistory }> {
  const { turns, callsPerTurn } = shape;
  const workflowId = `${ctx.idPrefix}-${system.name}-replay-${turns}x${callsPerTurn}`;
  const run = await system.run(shape, workflowId);
  const history: FetchedHistory = await ctx.client.workflow.getHandle(workflowId, run.firstRunId).fetchHistory();
  const last = history.events?.[history.events.length - 1];
  if (last?.workflowExecutionContinuedAsNewEventAttributes) throw new Error(`${system.name}: the ${turns}-turn run continued as new; measure a shorter one`);
  return { workflowId, history };
}

async function replayCpuMs(system: LoopSystem, recorded: { workflowId: string; history: FetchedHistory }, replays: number): Promise<number> {
  async function* histories() {
    for (let i = 0; i < replays; i++) yield { workflowId: `${recorded.workflowId}-${i}`, history: recorded.history };
  }
  const before = process.cpuUsage();
  let done = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: system.workflowBundle }, histories())) {
    if (result.error) throw new Error(`${system.name}: replay failed: ${result.error.message}`);
    done += 1;
  }
  const cpu = process.cpuUsage(before);
  return (cpu.user + cpu.system) / 1000 / done;
}

/**
 * Promises created in workflow contexts during one replay: those whose constructor is not this
 * realm's Promise (workflow code runs in its own V8 context). Counted in a replay of its own,
 * with a second promise hook installed only for it, so the timed replays do not pay for it.
 */
async function replayPromises(system: LoopSystem, recorded: { workflowId: string; history: FetchedHistory }): Promise<number> {
  let count = 0;
  const stop = promiseHooks.onInit((promise) => {
    if (promise.constructor !== Promise) count += 1;
  });
  try {
    await Worker.runReplayHistory({ workflowBundle: system.workflowBundle }, recorded.history, `${recorded.workflowId}-promises`);
  } finally {
    stop();
  }
  return count;
}

/**
 * Records a short, a long and a fan-out run (`fanOut`, the S3 shape) per system, then replays
 * them in rounds, systems interleaved.
 */
export async function measureReplayCosts(ctx: BenchContext, plan: ReplayCostPlan, fanOut: RunShape): Promise<Map<SystemName, ReplayCosts>> {
  type Recorded = Awaited<ReturnType<typeof recordHistory>>;
  const recorded = new Map<SystemName, { short: Recorded; long: Recorded; fanOut: Recorded }>();
  for (const system of ctx.systems) {
    recorded.set(system.name, {
      short: await recordHistory(ctx, system, { turns: plan.shortTurns, callsPerTurn: 1 }),
      long: await recordHistory(ctx, system, { turns: plan.longTurns, callsPerTurn: 1 }),
      fanOut: await recordHistory(ctx, system, fanOut),
    });
  }
  const longReplays = Math.max(plan.minLongReplays, Math.round((plan.replays * plan.shortTurns) / plan.longTurns));
  const samples = new Map<SystemName, { short: number[]; long: number[]; fanOut: number[] }>(ctx.systems.map((s) => [s.name, { short: [], long: [], fanOut: [] }]));
  // One replay worker first, so the first system measured does not pay the process's warm-up.
  const first = ctx.systems[0];
  if (first) await replayCpuMs(first, recorded.get(first.name)!.short, 3);
  for (let round = 0; round < plan.rounds; round++) {
    for (const system of ctx.systems) {
      const r = recorded.get(system.name)!;
      const s = samples.get(system.name)!;
      s.short.push(await replayCpuMs(system, r.short, plan.replays));
      s.long.push(await replayCpuMs(system, r.long, longReplays));
      s.fanOut.push(await replayCpuMs(system, r.fanOut, plan.fanOutReplays));
    }
    ctx.progress(`replay cost round ${round + 1}/${plan.rounds} done`);
  }
  const promises = new Map<SystemName, { short: number; long: number; fanOut: number }>();
  for (const system of ctx.systems) {
    const r = recorded.get(system.name)!;
    promises.set(system.name, { short: await replayPromises(system, r.short), long: await replayPromises(system, r.long), fanOut: await replayPromises(system, r.fanOut) });
  }
  const extraCalls = fanOut.turns * fanOut.callsPerTurn - plan.shortTurns;
  const costs = new Map<SystemName, ReplayCosts>();
  for (const system of ctx.systems) {
    const s = samples.get(system.name)!;
    const p = promises.get(system.name)!;
    const short: ReplayCost = { turns: plan.shortTurns, replaysPerRound: plan.replays, cpuMsPerReplay: s.short, cpuMsPerReplayMedian: percentile(s.short, 0.5) };
    const long: ReplayCost = { turns: plan.longTurns, replaysPerRound: longReplays, cpuMsPerReplay: s.long, cpuMsPerReplayMedian: percentile(s.long, 0.5) };
    const extraTurns = plan.longTurns - plan.shortTurns;
    const fanOutMedian = percentile(s.fanOut, 0.5);
    costs.set(system.name, {
      short,
      long,
      cpuMsPerTurn: (long.cpuMsPerReplayMedian - short.cpuMsPerReplayMedian) / extraTurns,
      promises: { short: p.short, long: p.long, perTurn: (p.long - p.short) / extraTurns },
      fanOut: {
        shape: fanOut,
        replaysPerRound: plan.fanOutReplays,
        cpuMsPerReplay: s.fanOut,
        cpuMsPerReplayMedian: fanOutMedian,
        cpuMsPerExtraCall: (fanOutMedian - short.cpuMsPerReplayMedian) / extraCalls,
        promises: p.fanOut,
        promisesPerExtraCall: (p.fanOut - p.short) / extraCalls,
      },
    });
    ctx.progress(
      `replay cost ${system.name}: ${plan.shortTurns}-turn run ${short.cpuMsPerReplayMedian.toFixed(1)} ms CPU, ` +
        `${plan.longTurns}-turn run ${long.cpuMsPerReplayMedian.toFixed(1)} ms CPU per replay, ` +
        `${fanOut.turns}×${fanOut.callsPerTurn} run ${fanOutMedian.toFixed(1)} ms; ${p.short}, ${p.long} and ${p.fanOut} promises`,
    );
  }
  return costs;
}
