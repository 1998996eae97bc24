/**
 * The reference loop of the benchmark ("temporal-raw"): the smallest hand-written Temporal
 * workflow that does what a durable-agents run of the same shape does — T turns, each of K
 * parallel calls of a no-op activity — with no planner, no events, no memo and no state.
 * Bundled on its own, apart from the agent workflows.
 */
import { condition, defineQuery, defineSignal, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import { rawReleaseSignalName, rawWaitingQueryName, type RawActivities, type RawLoopInput } from './raw-contract';

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

const rawWaitingQuery = defineQuery<boolean>(rawWaitingQueryName);
const rawReleaseSignal = defineSignal(rawReleaseSignalName);

/**
 * The loop, then a wait for a signal: the reference of a run that waits for a human (the
 * benchmark's cached-heap measure keeps many of these in a worker's cache).
 */
export async function rawWaitingLoop(input: RawLoopInput): Promise<void> {
  let waiting = false;
  let released = false;
  setHandler(rawWaitingQuery, () => waiting);
  setHandler(rawReleaseSignal, () => {
    released = true;
  });
  await loop(input, echo);
  waiting = true;
  await condition(() => released);
}
