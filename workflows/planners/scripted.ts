import { z } from 'zod';
import { awaitSchema, describeIssues, toolCallSchema, jsonValueSchema, type PlanResult } from '../../contracts';
import type { Planner, PlannerContext } from '../planner';

/** One step of a script: what the planner returns on its Nth turn. */
export const scriptStepSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('tool_calls'), calls: z.array(toolCallSchema).min(1) }),
  z.object({ type: z.literal('final'), text: z.string(), structured: jsonValueSchema.optional() }),
  z.object({ type: z.literal('await'), await: awaitSchema }),
]);
export type ScriptStep = z.infer<typeof scriptStepSchema>;

/** Options of the scripted planner: the steps, in order. */
export const scriptedPlannerOptionsSchema = z.object({
  steps: z.array(scriptStepSchema).min(1, 'a script needs at least one step'),
  /** Text of the final answer on a Finalize turn; `{reason}` and `{message}` are filled in. */
  finalizeText: z.string().optional(),
});
export type ScriptedPlannerOptions = z.infer<typeof scriptedPlannerOptionsSchema>;

const stepKey = 'scripted.step';

function stepToPlan(step: ScriptStep): PlanResult {
  switch (step.type) {
    case 'tool_calls':
      return { type: 'tool_calls', calls: step.calls };
    case 'final':
      return { type: 'final', response: { text: step.text, ...(step.structured !== undefined ? { structured: step.structured } : {}) } };
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
  const parsed = scriptedPlannerOptionsSchema.safeParse(rawOptions);
  if (!parsed.success) throw new Error(`invalid scripted planner options: ${describeIssues(parsed.error)}`);
  const { steps, finalizeText } = parsed.data;

  const next = (ctx: PlannerContext): PlanResult => {
    const index = Number(ctx.state.get(stepKey) ?? 0);
    const step = steps[index];
    if (!step) throw new Error(`scripted planner ran out of steps: script has ${steps.length}, turn ${ctx.turn} asked for step ${index + 1}`);
    ctx.state.set(stepKey, index + 1);
    return stepToPlan(step);
  };

  return {
    planStart: (_input, ctx) => next(ctx),
    planResume: (input, ctx) => {
      if (input.finalize) {
        const text = (finalizeText ?? 'Stopped early ({reason}): {message}.')
          .replace('{reason}', input.finalize.reason)
          .replace('{message}', input.finalize.message);
        return { type: 'final', response: { text } };
      }
      return next(ctx);
    },
  };
}
