import type { Client } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { AgentClient } from '../client/agent-client';
import { scriptedLocalAgent } from './agents';
import { readAllEvents, runToCompletion, turnDurationsMs, type FinishedRun } from './durable';
import { rawActivities, type RawLoopInput } from './raw-contract';
import type { RunShape } from './workload';

/** The systems the benchmark runs the same loop on. durable-agents is measured; the others are the reference. */
export const systemNames = ['durable-agents', 'durable-agents-local', 'temporal-raw', 'temporal-raw-local'] as const;
export type SystemName = (typeof systemNames)[number];

/** One system under measurement: how to run a loop of a shape, read its turn spans, and replay its histories. */
export interface LoopSystem {
  readonly name: SystemName;
  /** The bundle its runs' histories replay with. */
  readonly workflowBundle: WorkflowBundleWithSourceMap;
  /** Starts a run of the shape and waits for its result; throws unless every turn ran. */
  run(shape: RunShape, workflowId: string): Promise<FinishedRun>;
  /** Turn durations of a finished run on the workflow clock (T tool turns give T spans). */
  turnSpansMs(run: FinishedRun): Promise<number[]>;
}

/**
 * durable-agents: the scripted agent, turn spans from its event log (plan → plan);
 * durable-agents-local: the same with `echo` as a local tool (agent `scripted-local`).
 */
export function durableSystem(agents: AgentClient, workflowBundle: WorkflowBundleWithSourceMap, name: 'durable-agents' | 'durable-agents-local' = 'durable-agents'): LoopSystem {
  const agent = name === 'durable-agents' ? undefined : scriptedLocalAgent.name;
  return {
    name,
    workflowBundle,
    run: (shape, workflowId) => runToCompletion(agents, shape, workflowId, agent),
    turnSpansMs: async (run) => turnDurationsMs(await readAllEvents(agents, run.workflowId)),
  };
}

/** The reference workflows module (bench/raw-workflows.ts). */
export const rawWorkflowsPath = require.resolve('./raw-workflows');

/** Bundles the reference workflows on their own (no durable-agents code in the bundle). */
export function bundleRawWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  const quiet = { log: () => {}, trace: () => {}, debug: () => {}, info: () => {}, warn: console.warn, error: console.error };
  return bundleWorkflowCode({ workflowsPath: rawWorkflowsPath, logger: quiet });
}

/** The worker of the reference loop: its own task queue, the no-op echo activity, SDK defaults. */
export function createRawWorker(connection: NativeConnection, namespace: string, taskQueue: string, workflowBundle: WorkflowBundleWithSourceMap): Promise<Worker> {
  return Worker.create({ connection, namespace, taskQueue, workflowBundle, activities: rawActivities, identity: 'bench-raw-worker' });
}

/** temporal-raw (regular activities) or temporal-raw-local (local activities) on the reference worker's task queue. */
export function rawSystem(name: 'temporal-raw' | 'temporal-raw-local', client: Client, taskQueue: string, workflowBundle: WorkflowBundleWithSourceMap): LoopSystem {
  const workflowType = name === 'temporal-raw' ? 'rawLoop' : 'rawLocalLoop';
  return {
    name,
    workflowBundle,
    run: async (shape, workflowId) => {
      const started = performance.now();
      const input: RawLoopInput = { turns: shape.turns, callsPerTurn: shape.callsPerTurn };
      const handle = await client.workflow.start(workflowType, { taskQueue, workflowId, args: [input] });
      const turnStartsMs: unknown = await handle.result();
      const wallMs = performance.now() - started;
      if (!Array.isArray(turnStartsMs) || turnStartsMs.length !== shape.turns + 1 || !turnStartsMs.every((t) => typeof t === 'number')) {
        throw new Error(`${name} run ${workflowId} did not return ${shape.turns + 1} turn times`);
      }
      return { workflowId, firstRunId: handle.firstExecutionRunId, wallMs, turnStartsMs };
    },
    turnSpansMs: (run) => {
      const starts = run.turnStartsMs ?? [];
      return Promise.resolve(starts.slice(1).map((t, i) => t - (starts[i] ?? t)));
    },
  };
}
