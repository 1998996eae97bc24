import type { RunInput, RunPolicy } from '../contracts';
import type { ScriptStep } from '../workflows/planners/scripted';

/** Shape of one synthetic run: T turns of K parallel `echo` calls, then a final answer. */
export interface RunShape {
  /** Tool turns (T). */
  readonly turns: number;
  /** `echo` calls per turn (K); they run in parallel. */
  readonly callsPerTurn: number;
}

/** Name of the agent the benchmark's durable-agents runs use (no LLM); durable-agents-local uses `scripted-local`. */
export const benchAgent = 'scripted';

/** Policy overrides large enough that no cap ever triggers during a benchmark. */
export const uncappedPolicy: Partial<RunPolicy> = {
  maxIterations: 1_000_000,
  maxToolCalls: 100_000_000,
  maxConsecutiveFailures: 1_000_000,
  timeBudgetMs: 7 * 24 * 60 * 60_000,
  parallelToolCalls: true,
};

/** The scripted planner's steps for a shape: T `tool_calls` steps, then `final`. */
export function scriptFor(shape: RunShape): ScriptStep[] {
  const steps: ScriptStep[] = [];
  for (let turn = 0; turn < shape.turns; turn++) {
    const calls = Array.from({ length: shape.callsPerTurn }, (_, k) => ({ name: 'echo', args: { text: `t${turn}c${k}` } }));
    steps.push({ type: 'tool_calls', calls });
  }
  steps.push({ type: 'final', text: 'done' });
  return steps;
}

/** The run input of the `scripted` agent for a shape. */
export function runInputFor(shape: RunShape, agent = benchAgent): RunInput {
  return {
    agent,
    messages: [{ role: 'user', content: 'benchmark' }],
    policy: uncappedPolicy,
    labels: { bench: 'true' },
    plannerOptions: { steps: scriptFor(shape) },
  };
}
