/**
 * The reference loop of the benchmark ("temporal-raw"): the smallest hand-written Temporal
 * workflow that does what a durable-agents run of the same shape does — T turns, each of K
 * parallel calls of a no-op activity — with no planner, no events, no memo and no state.
 * Bundled on its own, apart from the agent workflows.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { RawActivities, RawLoopInput } from './raw-contract';

const { echo } = proxyActivities<RawActivities>({ startToCloseTimeout: '1 minute' });
const { echo: localEcho } = proxyLocalActivities<RawActivities>({ startToCloseTimeout: '1 minute' });

/** Workflow clock in ms: inside the sandbox `Date` is the time of the current workflow task. */
const now = (): number => new Date().getTime();

async function loop(input: RawLoopInput, call: RawActivities['echo']): Promise<number[]> {
  // Start of each turn and the end of the last (T + 1 times, T spans), like the plan events of a run.
  const turnStarts: number[] = [];
  for (let turn = 0; turn < input.turns; turn++) {
    turnStarts.push(now());
    await Promise.all(Array.from({ length: input.callsPerTurn }, (_, k) => call({ text: `t${turn}c${k}` })));
  }
  turnStarts.push(now());
  return turnStarts;
}

/** The loop with regular activities (each call is scheduled, dispatched and completed through the server). */
export async function rawLoop(input: RawLoopInput): Promise<number[]> {
  return loop(input, echo);
}

/** The loop with local activities (calls run in the worker; their results are recorded as markers). */
export async function rawLocalLoop(input: RawLoopInput): Promise<number[]> {
  return loop(input, localEcho);
}
