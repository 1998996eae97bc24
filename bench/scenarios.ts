import { readAllEvents, runToCompletion, turnDurationsMs, type DurableContext } from './durable';
import type { BenchPlan } from './plan';
import { summarize, type Summary } from './stats';
import type { RunShape } from './workload';

/** Per-turn latency of runs executed one at a time (S1, S3). */
export interface LatencyResult {
  readonly shape: RunShape;
  readonly runs: number;
  /** Turn durations from the event log (plan event to next plan event, workflow clock). */
  readonly eventTurnMs: Summary;
  /** Each run's client wall time divided by T (includes start and the final step). */
  readonly wallTurnMs: Summary;
  readonly wallRunMs: Summary;
}

/** Throughput of many runs at once (S2). */
export interface ThroughputResult {
  readonly shape: RunShape;
  readonly runs: number;
  readonly wallMs: number;
  readonly turnsPerSec: number;
  readonly toolCallsPerSec: number;
  /** Turn durations from the event logs of all runs, under that load. */
  readonly eventTurnMs: Summary;
}

/** Runs one small run so worker start-up (first workflow context, first polls) is not measured. */
export async function warmUp(ctx: DurableContext, plan: BenchPlan): Promise<void> {
  ctx.progress(`warm-up run (T=${plan.warmup.turns}, K=${plan.warmup.callsPerTurn})`);
  await runToCompletion(ctx, plan.warmup, `${ctx.idPrefix}-warmup`);
}

/** Runs `repeats` runs of a shape one after another and measures per-turn latency. */
export async function measureLatency(ctx: DurableContext, name: string, shape: RunShape, repeats: number): Promise<LatencyResult> {
  const eventTurns: number[] = [];
  const wallTurns: number[] = [];
  const wallRuns: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const run = await runToCompletion(ctx, shape, `${ctx.idPrefix}-${name}-${i}`);
    eventTurns.push(...turnDurationsMs(await readAllEvents(ctx.agents, run.workflowId)));
    wallRuns.push(run.wallMs);
    wallTurns.push(run.wallMs / shape.turns);
    ctx.progress(`${name} run ${i + 1}/${repeats}: ${run.wallMs.toFixed(0)} ms (T=${shape.turns}, K=${shape.callsPerTurn})`);
  }
  return { shape, runs: repeats, eventTurnMs: summarize(eventTurns), wallTurnMs: summarize(wallTurns), wallRunMs: summarize(wallRuns) };
}

/** Starts `runs` runs at once, waits for all of them and derives throughput. */
export async function measureThroughput(ctx: DurableContext, name: string, shape: RunShape, runs: number): Promise<ThroughputResult> {
  ctx.progress(`${name}: starting ${runs} concurrent runs (T=${shape.turns}, K=${shape.callsPerTurn})`);
  const ids = Array.from({ length: runs }, (_, i) => `${ctx.idPrefix}-${name}-${i}`);
  const started = performance.now();
  await Promise.all(ids.map((id) => runToCompletion(ctx, shape, id)));
  const wallMs = performance.now() - started;
  ctx.progress(`${name}: ${runs} runs done in ${wallMs.toFixed(0)} ms; reading event logs`);
  const eventTurns: number[] = [];
  for (const id of ids) eventTurns.push(...turnDurationsMs(await readAllEvents(ctx.agents, id)));
  const turns = runs * shape.turns;
  return {
    shape,
    runs,
    wallMs,
    turnsPerSec: turns / (wallMs / 1000),
    toolCallsPerSec: (turns * shape.callsPerTurn) / (wallMs / 1000),
    eventTurnMs: summarize(eventTurns),
  };
}
