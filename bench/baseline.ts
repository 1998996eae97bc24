import {
  jsonByteLength,
  planResultSchema,
  type JsonValue,
  type Message,
  type ParsedPlanResult,
  type PlanResult,
  type ToolOutput,
  type ToolRequest,
} from '../contracts';
import { echoTool } from '../examples/toolbox/agent';
import { MemorySideEffectSink, toolboxImplementations } from '../examples/toolbox/tools';
import type { ToolContext, ToolImplementation } from '../activities';
import { recordAgentState } from '../workflows/agent-state';
import { assistantToolCalls, toolResultMessage } from '../workflows/conversation';
import type { PlannerContext } from '../workflows/planner';
import { createScriptedPlanner } from '../workflows/planners/scripted';
import { runInputFor, type RunShape } from './workload';

/** One non-durable run of the loop. */
export interface BaselineRun {
  /** Duration of each turn: from the plan that opened it to the next plan (performance.now). */
  readonly turnMs: number[];
  readonly totalMs: number;
  /** JSON bytes of what the loop holds in memory at the end: input, messages, tool outputs. */
  readonly stateBytes: number;
}

function echoImplementation(): ToolImplementation {
  const echo = toolboxImplementations(new MemorySideEffectSink()).find((t) => t.definition.name === echoTool.name);
  if (!echo) throw new Error('the toolbox has no echo implementation');
  return echo;
}

const echo = echoImplementation();

function toolContext(request: ToolRequest): ToolContext {
  return {
    runId: 'baseline',
    agent: 'scripted',
    toolCallId: request.toolCallId,
    turn: request.turn,
    idempotencyKey: `baseline/${request.toolCallId}`,
    attempt: 1,
    session: { get: () => undefined, set: () => {} },
    signal: new AbortController().signal,
    heartbeat: () => {},
  };
}

/** Runs one call like the tool activity does: validate args, execute, check the output, size it. */
async function callEcho(request: ToolRequest): Promise<ToolOutput> {
  const started = performance.now();
  const args = echoTool.input.safeParse(request.args);
  if (!args.success) throw new Error(`baseline: invalid echo args at ${request.toolCallId}`);
  const result: JsonValue = (await echo.execute(args.data, toolContext(request))) ?? null;
  if (!echoTool.output?.safeParse(result).success) throw new Error(`baseline: echo returned an invalid result at ${request.toolCallId}`);
  return {
    toolCallId: request.toolCallId,
    name: request.name,
    args: request.args,
    turn: request.turn,
    status: 'ok',
    result,
    resultBytes: jsonByteLength(result),
    telemetry: { durationMs: performance.now() - started, attempts: 1 },
  };
}

/**
 * The same Think-Act-Observe loop with no durability: the real scripted planner (it touches
 * no workflow API), plan validation, parallel echo calls and the same conversation records,
 * all in this process.
 *
 * @throws Error when the planner's script does not end in a final answer.
 */
export async function runBaselineLoop(shape: RunShape): Promise<BaselineRun> {
  const input = runInputFor(shape);
  const planner = createScriptedPlanner(input.plannerOptions);
  const plannerState: Record<string, JsonValue> = {};
  const messages: Message[] = input.messages.map((m) => ({ ...m }));
  const toolOutputs: ToolOutput[] = [];
  let turn = 0;
  const context = (): PlannerContext => ({
    runId: 'baseline',
    workflowId: 'baseline',
    agent: 'scripted',
    turn,
    transcriptEpoch: 0,
    state: recordAgentState(plannerState),
    sessionState: {},
    emitNote: () => {},
    recordModelUsage: () => {},
  });
  const validate = (plan: PlanResult): ParsedPlanResult => planResultSchema.parse(plan);

  const turnMs: number[] = [];
  const start = performance.now();
  let plan = validate(await planner.planStart({ messages }, context()));
  let turnStart = performance.now();
  while (plan.type === 'tool_calls') {
    const requests: ToolRequest[] = plan.calls.map((c, i) => ({ toolCallId: c.id ?? `call_${turn}_${i}`, name: c.name, args: c.args, turn }));
    messages.push(assistantToolCalls(requests));
    const lastOutputs = await Promise.all(requests.map(callEcho));
    for (const output of lastOutputs) {
      toolOutputs.push(output);
      messages.push(toolResultMessage(output));
    }
    turn += 1;
    plan = validate(await planner.planResume({ messages, toolOutputs, lastOutputs }, context()));
    const now = performance.now();
    turnMs.push(now - turnStart);
    turnStart = now;
  }
  if (plan.type !== 'final') throw new Error(`baseline: the script ended with ${plan.type}, not final`);
  messages.push({ role: 'assistant', content: plan.response.text });
  const totalMs = performance.now() - start;
  return { turnMs, totalMs, stateBytes: jsonByteLength({ input, messages, toolOutputs }) };
}
