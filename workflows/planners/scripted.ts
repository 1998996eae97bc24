import { z } from 'zod';
import { builtOnce, lazySchema } from '../../contracts/lazy';
import { awaitSchema, type PlanResult } from '../../contracts/plan';
import { describeIssues, jsonValueSchema, type JsonValue } from '../../contracts/json';
import { toolCallSchema, type ToolOutput, type WrittenOutput } from '../../contracts/tools';
import type { Message } from '../../contracts/messages';
import { array, boolean, anyString, fastSafeParse, json, object, oneOf, optional, required, tagged, type FastShape } from '../../contracts/fast-parse';
import { fastToolCall } from '../../contracts/fast-schemas';
import type { Planner, PlannerContext } from '../agents/planner';

/** One step of a script: what the planner returns on its Nth turn. */
const scriptStep = builtOnce(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('tool_calls'), calls: z.array(toolCallSchema()).min(1) }),
    z.object({
      type: z.literal('final'),
      text: z.string(),
      structured: jsonValueSchema().optional(),
      /** Put what the planner observed (every tool output so far, summarised) in `structured`. */
      reportObservations: z.boolean().optional(),
      /** Put the planner's whole view in `structured`: `{ instructions, messages, outputs }`. */
      reportContext: z.boolean().optional(),
    }),
    z.object({ type: z.literal('await'), await: awaitSchema() }),
  ]),
);
export type ScriptStep = z.input<ReturnType<typeof scriptStep>>;

/** Options of the scripted planner: the steps, in order. */
const scriptedPlannerOptions = builtOnce(() =>
  z.object({
    steps: z.array(scriptStep()).min(1, 'a script needs at least one step'),
    /** Text of the final answer on a Finalize turn; `{reason}` and `{message}` are filled in. */
    finalizeText: z.string().optional(),
  }),
);
export type ScriptedPlannerOptions = z.infer<ReturnType<typeof scriptedPlannerOptions>>;

/** One step of a script, as a schema (the planner itself parses through the builder above). */
export const scriptStepSchema = lazySchema(scriptStep);
/** Options of the scripted planner, as a schema. */
export const scriptedPlannerOptionsSchema = lazySchema(scriptedPlannerOptions);

/** Mirrors of the two schemas above for tool-call and final steps (see contracts/fast-parse.ts); awaits go to zod. */
export const scriptStepShapes: Readonly<Record<'tool_calls' | 'final', FastShape>> = {
  tool_calls: { type: required(oneOf('tool_calls')), calls: required(array(fastToolCall, 1)) },
  final: {
    type: required(oneOf('final')),
    text: required(anyString),
    structured: optional(json),
    reportObservations: optional(boolean),
    reportContext: optional(boolean),
  },
};
export const scriptedPlannerOptionsShape: FastShape = {
  steps: required(array(tagged('type', { tool_calls: object(scriptStepShapes.tool_calls), final: object(scriptStepShapes.final) }), 1)),
  finalizeText: optional(anyString),
};
export const fastScriptedPlannerOptions = object<ScriptedPlannerOptions>(scriptedPlannerOptionsShape);

const stepKey = 'scripted.step';

/** A JSON summary of tool outputs: what a scripted run reports it saw. */
function observations(outputs: readonly ToolOutput[]): JsonValue {
  return outputs.map((o) => ({
    toolCallId: o.toolCallId,
    name: o.name,
    status: o.status,
    ...(o.result !== undefined ? { result: o.result } : {}),
    ...(o.resultOmitted ? { resultOmitted: true, resultBytes: o.resultBytes } : {}),
    ...(o.error ? { errorType: o.error.type, errorMessage: o.error.message } : {}),
    ...(o.retryHint ? { retryReason: o.retryHint.reason } : {}),
  }));
}

function stepToPlan(step: ScriptStep, outputs: readonly ToolOutput[], view: () => JsonValue): PlanResult {
  switch (step.type) {
    case 'tool_calls':
      return { type: 'tool_calls', calls: step.calls };
    case 'final': {
      const structured = step.reportContext ? view() : step.reportObservations ? observations(outputs) : step.structured;
      return { type: 'final', response: { text: step.text, ...(structured !== undefined ? { structured } : {}) } };
    }
    case 'await':
      return { type: 'await', await: step.await };
  }
}

/**
 * A deterministic planner that replays a fixed script: step N on turn N. On a Finalize turn
 * it answers with `finalizeText`. The step index lives in the planner state, so it is durable.
 *
 * @throws Error when options are invalid, or when the script runs out (loudly, by design).
 * @example
 * createScriptedPlanner({ steps: [{ type: 'tool_calls', calls: [{ name: 'echo', args: { text: 'hi' } }] },
 *   { type: 'final', text: 'done' }] });
 */
export function createScriptedPlanner(rawOptions: unknown): Planner {
  const parsed = fastSafeParse(fastScriptedPlannerOptions, rawOptions, scriptedPlannerOptions);
  if (!parsed.success) throw new Error(`invalid scripted planner options: ${describeIssues(parsed.error)}`);
  const { steps, finalizeText } = parsed.data;

  const next = (ctx: PlannerContext, outputs: readonly ToolOutput[], messages: readonly Message[], written: Readonly<Record<string, WrittenOutput>> = {}): PlanResult => {
    const index = Number(ctx.state.get(stepKey) ?? 0);
    const step = steps[index];
    if (!step) throw new Error(`scripted planner ran out of steps: script has ${steps.length}, turn ${ctx.turn} asked for step ${index + 1}`);
    ctx.state.set(stepKey, index + 1);
    const view = (): JsonValue => ({
      instructions: ctx.instructions ?? null,
      messages: messages.map((m) => ({ ...m }) as JsonValue),
      outputs: observations(outputs),
      paths: Object.fromEntries(Object.entries(written).map(([path, w]) => [path, { toolCallId: w.toolCallId, value: w.value ?? null }])),
    });
    return stepToPlan(step, outputs, view);
  };

  return {
    synchronous: true,
    planStart: (input, ctx) => next(ctx, [], input.messages),
    planResume: (input, ctx) => {
      if (input.finalize) {
        const text = (finalizeText ?? 'Stopped early ({reason}): {message}.')
          .replace('{reason}', input.finalize.reason)
          .replace('{message}', input.finalize.message);
        return { type: 'final', response: { text, structured: observations(input.toolOutputs) } };
      }
      return next(ctx, input.toolOutputs, input.messages, input.outputs);
    },
  };
}
