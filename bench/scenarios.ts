import type { Client } from '@temporalio/client';
import { processCpuMs } from './process-cpu';
import type { BenchPlan } from './plan';
import { summarize, type Summary } from './stats';
import type { LoopSystem, SystemName } from './systems';
import type { RunShape } from './workload';

/** What the scenarios need: the systems to run, a client of the bench server, ids, a progress sink. */
export interface BenchContext {
  readonly systems: readonly LoopSystem[];
  readonly client: Client;
  /** Prefix of every workflow id of this invocation. */
  readonly idPrefix: string;
  readonly progress: (line: string) => void;
  /** Process id of the bench's own dev server, whose CPU S2 reads (undefined for a reused server). */
  readonly serverPid?: number | undefined;
}

/** Per-turn latency of runs executed one at a time (S1, S3). */
export interface LatencyResult {
  readonly shape: RunShape;
  readonly runs: number;
  /** Turn durations on the workflow clock (durable-agents: plan event to next plan event; reference: turn start to next). */
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
  /** Turn durations of all runs on the workflow clock, under that load. */
  readonly eventTurnMs: Summary;
  /** CPU per turn during the batch: this process (client and both systems' workers) and the dev server (absent in older results; server undefined when not read). */
  readonly cpuMsPerTurn?: { readonly bench: number; readonly server: number | undefined };
  /** Turns per second of every batch, in order; the fields above are those of the median batch (absent in older results: one batch). */
  readonly rounds?: readonly number[];
}

/**
 * Runs the plan's warm-up runs, interleaved across systems, so that neither worker start-up
 * (first workflow context, first polls) nor V8's first compilations of each system's code are
 * measured.
 */
export async function warmUp(ctx: BenchContext, plan: BenchPlan): Promise<void> {
  for (const [w, { shape, runs }] of plan.warmup.entries()) {
    ctx.progress(`warm-up: ${runs} run(s) of each system (T=${shape.turns}, K=${shape.callsPerTurn})`);
    for (let i = 0; i < runs; i++) {
      for (const system of ctx.systems) await system.run(shape, `${ctx.idPrefix}-${system.name}-warmup-${w}-${i}`);
    }
  }
}

/**
 * Runs `repeats` runs of a shape one after another on every system, interleaved (repeat i of
 * each system before repeat i + 1 of any), and measures per-turn latency.
 */
export async function measureLatency(ctx: BenchContext, name: string, shape: RunShape, repeats: number): Promise<Record<SystemName, LatencyResult>> {
  const samples = new Map(ctx.systems.map((s) => [s.name, { eventTurns: [] as number[], wallTurns: [] as number[], wallRuns: [] as number[] }]));
  for (let i = 0; i < repeats; i++) {
    const line: string[] = [];
    for (const system of ctx.systems) {
      const sample = samples.get(system.name);
      if (!sample) throw new Error(`no samples for ${system.name}`);
      const run = await system.run(shape, `${ctx.idPrefix}-${system.name}-${name}-${i}`);
      sample.eventTurns.push(...(await system.turnSpansMs(run)));
      sample.wallRuns.push(run.wallMs);
      sample.wallTurns.push(run.wallMs / shape.turns);
      line.push(`${system.name} ${run.wallMs.toFixed(0)} ms`);
    }
    ctx.progress(`${name} repeat ${i + 1}/${repeats} (T=${shape.turns}, K=${shape.callsPerTurn}): ${line.join(', ')}`);
  }
  const results: Partial<Record<SystemName, LatencyResult>> = {};
  for (const [system, s] of samples) {
    results[system] = { shape, runs: repeats, eventTurnMs: summarize(s.eventTurns), wallTurnMs: summarize(s.wallTurns), wallRunMs: summarize(s.wallRuns) };
  }
  return complete(results, ctx);
}

/** Starts `runs` runs of one system at once, waits for all of them and derives throughput. */
async function throughputOf(ctx: BenchContext, system: LoopSystem, name: string, shape: RunShape, runs: number, idPart: string): Promise<ThroughputResult> {
  ctx.progress(`${name} ${system.name}: starting ${runs} concurrent runs (T=${shape.turns}, K=${shape.callsPerTurn})`);
  const ids = Array.from({ length: runs }, (_, i) => `${ctx.idPrefix}-${system.name}-${idPart}-${i}`);
  const serverCpuBefore = ctx.serverPid === undefined ? undefined : processCpuMs(ctx.serverPid);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const finished = await Promise.all(ids.map((id) => system.run(shape, id)));
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const serverCpuAfter = ctx.serverPid === undefined ? undefined : processCpuMs(ctx.serverPid);
  ctx.progress(`${name} ${system.name}: ${runs} runs done in ${wallMs.toFixed(0)} ms; reading turn times`);
  const eventTurns: number[] = [];
  for (const run of finished) eventTurns.push(...(await system.turnSpansMs(run)));
  const turns = runs * shape.turns;
  return {
    shape,
    runs,
    wallMs,
    turnsPerSec: turns / (wallMs / 1000),
    toolCallsPerSec: (turns * shape.callsPerTurn) / (wallMs / 1000),
    eventTurnMs: summarize(eventTurns),
    cpuMsPerTurn: {
      bench: (cpu.user + cpu.system) / 1000 / turns,
      server: serverCpuBefore === undefined || serverCpuAfter === undefined ? undefined : (serverCpuAfter - serverCpuBefore) / turns,
    },
  };
}

/**
 * Throughput of every system, one system's batch after another (never two systems at once), in
 * `rounds` rounds interleaved across the systems. Each system's result is its median batch by
 * turns per second, whole (wall, CPU and turn times of that one batch): a single batch moved by
 * 10–20 % between invocations on a shared machine.
 */
export async function measureThroughput(ctx: BenchContext, name: string, shape: RunShape, runs: number, rounds = 1): Promise<Record<SystemName, ThroughputResult>> {
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`throughput rounds must be a positive integer, got ${rounds}`);
  const batches = new Map<SystemName, ThroughputResult[]>(ctx.systems.map((s) => [s.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const system of ctx.systems) {
      const label = rounds === 1 ? name : `${name} round ${round + 1}/${rounds}`;
      batches.get(system.name)?.push(await throughputOf(ctx, system, label, shape, runs, `${name}-${round}`));
    }
  }
  const results: Partial<Record<SystemName, ThroughputResult>> = {};
  for (const [system, list] of batches) {
    const sorted = [...list].sort((a, b) => a.turnsPerSec - b.turnsPerSec);
    const median = sorted[Math.floor((sorted.length - 1) / 2)];
    if (median) results[system] = { ...median, rounds: list.map((b) => b.turnsPerSec) };
  }
  return complete(results, ctx);
}

/** The per-system record once every system of the context has its entry. */
export function complete<T>(results: Partial<Record<SystemName, T>>, ctx: Pick<BenchContext, 'systems'>): Record<SystemName, T> {
  for (const system of ctx.systems) if (results[system.name] === undefined) throw new Error(`no result for ${system.name}`);
  return results as Record<SystemName, T>;
}
