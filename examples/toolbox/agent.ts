import { z } from 'zod';
import { builtOnce, createScriptedPlanner, defineAgent, defineAgentTool, defineLlmAgent, defineTool, type AgentHooks } from 'durable-agents/workflow';

// Tool schemas are given as builders (defineTool calls one when the schema is first read):
// workflow code is evaluated again for every run, and a run builds only the schemas of the
// tools it calls (docs/agents-and-tools.md, "Tools"). transferInput is shared with requiresConfirmation, so it
// is built once (builtOnce) and both use that one schema.

/** Returns its text. */
export const echoTool = defineTool({
  name: 'echo',
  description: 'Return the given text unchanged.',
  input: () => z.object({ text: z.string() }),
  output: () => z.object({ text: z.string() }),
  // Every tool heartbeats on its own while it runs: a call whose worker died is retried on another
  // within 5 s instead of after its 60 s timeout (docs/agents-and-tools.md, "Tools").
  heartbeatTimeoutMs: 5_000,
});

/** Adds two numbers. */
export const addTool = defineTool({
  name: 'add',
  description: 'Add two numbers.',
  input: () => z.object({ a: z.number(), b: z.number() }),
  heartbeatTimeoutMs: 5_000,
});

/** Sleeps, heartbeating every 200 ms, so cancellation reaches it. */
export const sleepTool = defineTool({
  name: 'sleep',
  description: 'Wait for the given number of milliseconds.',
  input: () => z.object({ ms: z.number().int().nonnegative().max(3_600_000) }),
  timeoutMs: 3_600_000,
  heartbeatTimeoutMs: 5_000,
});

/** Always fails; `retryable: false` makes the failure non-retryable. */
export const failTool = defineTool({
  name: 'fail',
  description: 'Fail with the given message.',
  input: () => z.object({ message: z.string(), retryable: z.boolean().default(false) }),
  retry: { maximumAttempts: 2, initialIntervalMs: 100 },
  heartbeatTimeoutMs: 5_000,
});

/** Fails its first `failAttempts` attempts, then succeeds: exercises the retry policy. */
export const flakyTool = defineTool({
  name: 'flaky',
  description: 'Fail transiently a few times, then succeed.',
  input: () => z.object({ failAttempts: z.number().int().nonnegative() }),
  retry: { maximumAttempts: 5, initialIntervalMs: 100, backoffCoefficient: 1 },
  heartbeatTimeoutMs: 5_000,
});

/**
 * Performs a counted side effect under the call's idempotency key. Every execution is recorded
 * (nothing is deduplicated), so tests can prove that no completed call ever ran twice.
 */
export const recordTool = defineTool({
  name: 'record',
  description: 'Record a side effect under a label.',
  input: () => z.object({ label: z.string(), delayMs: z.number().int().nonnegative().max(60_000).default(0) }),
  timeoutMs: 120_000,
  // Short, so a call whose worker died is retried elsewhere within seconds.
  heartbeatTimeoutMs: 2_000,
});

/** Returns a string of the given size: exercises the result byte budget. */
export const blobTool = defineTool({
  name: 'blob',
  description: 'Return a large text blob of the given size in bytes.',
  input: () => z.object({ bytes: z.number().int().positive().max(20_000_000) }),
  heartbeatTimeoutMs: 5_000,
});

const transferInput = builtOnce(() => z.object({ to: z.string().min(1), amount: z.number().positive() }));

/** Moves money (pretend): confirmation is required only above 100, decided from the arguments. */
export const transferTool = defineTool({
  name: 'transfer',
  description: 'Transfer an amount to an account. Transfers above 100 need a human to confirm.',
  input: transferInput,
  // Runs in the workflow on validated arguments, so it must stay a pure function of them.
  requiresConfirmation: (args) => transferInput().parse(args).amount > 100,
  heartbeatTimeoutMs: 5_000,
});

/**
 * One step of a dependency-aware plan: waits, then returns its label and the results of the
 * calls it depended on (by the call they came from), or fails when told to.
 */
export const stepTool = defineTool({
  name: 'step',
  description: 'Wait, then report the label and the outputs of the calls this call depends on.',
  input: () => z.object({ label: z.string(), ms: z.number().int().nonnegative().max(600_000).default(0), fail: z.boolean().default(false) }),
  timeoutMs: 660_000,
  heartbeatTimeoutMs: 5_000,
  retry: { maximumAttempts: 1 },
  // No side effects: LLM runs with earlyDispatch may start it before the model's answer ends.
  startEarly: true,
});

/** Every toolbox tool, in a stable order. */
export const toolboxTools = [echoTool, addTool, sleepTool, failTool, flakyTool, recordTool, blobTool, transferTool, stepTool] as const;

/**
 * A general-purpose agent driven by the scripted planner: the run's `plannerOptions` carry
 * the script. Used by tests, benchmarks and operators who want a fully predictable run.
 */
export const scriptedAgent = defineAgent({
  name: 'scripted',
  description: 'Follows the script given in plannerOptions, using the toolbox tools.',
  tools: toolboxTools,
  createPlanner: createScriptedPlanner,
});

/** Hooks of the guarded agent: deterministic policy enforced in the workflow. */
export const guardHooks: AgentHooks = {
  before_tool: ({ call }) => {
    const args = call.args as { a?: unknown; text?: unknown };
    if (call.name === 'add' && typeof args.a === 'number' && args.a < 0) return { type: 'block', reason: 'negative numbers are not allowed' };
    if (call.name === 'echo' && args.text === 'secret') return { type: 'edit_args', args: { text: '[redacted]' } };
    return undefined;
  },
  before_commit: ({ response }) =>
    response.text.includes('password') ? { type: 'replace_response', response: { text: 'The answer was withheld: it contained a password.' } } : undefined,
};

/** The scripted agent with policy hooks: shows agents enforcing rules at intervention points. */
export const guardedAgent = defineAgent({
  ...scriptedAgent,
  name: 'guarded',
  description: 'The scripted agent, with hooks that block, redact and rewrite.',
  hooks: guardHooks,
});

/** The agents of this example, for its workflows module and its worker. */
/**
 * Runs the `scripted` agent as a sub-agent: the call's `steps` are its script. Each call gets
 * at most 10 tool calls of its own (and never more than the parent has left).
 */
export const delegateTool = defineAgentTool({
  name: 'delegate',
  description: 'Hand a task to the scripted agent, which follows the given steps.',
  agent: 'scripted',
  input: () => z.object({ task: z.string().min(1), steps: z.array(z.unknown()).min(1) }),
  toRun: ({ task, steps }) => ({ prompt: task, plannerOptions: { steps } }),
  allowance: { maxToolCalls: 10 },
});

/** A scripted agent that may delegate to sub-agents (agent as a tool), besides the toolbox tools. */
export const delegatorAgent = defineAgent({
  name: 'delegator',
  description: 'Follows its script; the delegate tool runs sub-agents.',
  tools: [...toolboxTools, delegateTool],
  createPlanner: createScriptedPlanner,
});

/** The toolbox's step and echo tools, planned by a model (tests and benchmarks use a fake one). */
export const toolboxLlmAgent = defineLlmAgent({
  name: 'toolbox-llm',
  description: 'Runs steps as a model plans them.',
  tools: [stepTool, echoTool],
  llm: { model: 'fake-model' },
});

export const toolboxAgents = [scriptedAgent, guardedAgent, delegatorAgent, toolboxLlmAgent];
