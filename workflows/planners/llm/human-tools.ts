import { z } from 'zod';
import { builtOnce } from '../../../contracts/lazy';
import { describeIssues } from '../../../contracts/json';
import type { AwaitItem } from '../../../contracts/plan';

/** A tool the model can call to ask a human; the planner turns the call into an await item. */
export interface HumanTool {
  readonly name: 'ask_clarification' | 'ask_multiple_choice';
  readonly description: string;
  readonly input: z.ZodType;
}

/** Arguments of `ask_clarification`. */
export const askClarificationArgsSchema = builtOnce(() =>
  z.object({
    question: z.string().min(1).describe('The question to ask the user, in their language.'),
    missingFields: z.array(z.string()).optional().describe('Names of the facts you need from the user.'),
  }),
);

/** Arguments of `ask_multiple_choice`. */
export const askMultipleChoiceArgsSchema = builtOnce(() =>
  z.object({
    title: z.string().optional().describe('Short title of the form.'),
    questions: z
      .array(
        z.object({
          id: z.string().min(1),
          prompt: z.string().min(1),
          options: z.array(z.object({ id: z.string().min(1), label: z.string() })).min(1),
          allowMultiple: z.boolean().optional(),
        }),
      )
      .min(1),
  }),
);

/** `ask_clarification`: one free-text question to the user. */
export const askClarificationTool: HumanTool = {
  name: 'ask_clarification',
  description: 'Ask the user a question when you cannot proceed without more information. The run waits for the answer.',
  // A getter: the schema is built when it is first read (the worker's JSON Schema, or a call).
  get input() {
    return askClarificationArgsSchema();
  },
};

/** `ask_multiple_choice`: a form of multiple-choice questions. */
export const askMultipleChoiceTool: HumanTool = {
  name: 'ask_multiple_choice',
  description: 'Ask the user one or more multiple-choice questions. The run waits for the answers.',
  get input() {
    return askMultipleChoiceArgsSchema();
  },
};

/** Which human tools an agent offers to its model. */
export interface HumanToolsConfig {
  readonly clarification?: boolean;
  readonly multipleChoice?: boolean;
}

/** The human tools enabled by a config, in a stable order. */
export function enabledHumanTools(config: HumanToolsConfig | undefined): HumanTool[] {
  return [...(config?.clarification ? [askClarificationTool] : []), ...(config?.multipleChoice ? [askMultipleChoiceTool] : [])];
}

/** A model call of a human tool, with its arguments already decoded from JSON (or the raw string). */
export interface HumanCall {
  readonly id: string;
  readonly name: HumanTool['name'];
  readonly args: unknown;
}

/** An await item for a human call, or why its arguments are unusable. */
export type HumanCallMapping = { ok: true; item: AwaitItem } | { ok: false; message: string };

/**
 * Maps a human-tool call to the await item the runtime shows to a human. The item is bound to
 * the call (`toolCallId`, `toolName`): the answer closes the call as its tool result.
 */
export function humanCallToAwaitItem(call: HumanCall): HumanCallMapping {
  if (call.name === 'ask_clarification') {
    const parsed = askClarificationArgsSchema().safeParse(call.args);
    if (!parsed.success) return { ok: false, message: `invalid arguments for ask_clarification: ${describeIssues(parsed.error)}` };
    return {
      ok: true,
      item: {
        kind: 'clarification',
        id: call.id,
        question: parsed.data.question,
        ...(parsed.data.missingFields ? { missingFields: parsed.data.missingFields } : {}),
        toolName: call.name,
        toolCallId: call.id,
      },
    };
  }
  const parsed = askMultipleChoiceArgsSchema().safeParse(call.args);
  if (!parsed.success) return { ok: false, message: `invalid arguments for ask_multiple_choice: ${describeIssues(parsed.error)}` };
  return {
    ok: true,
    item: {
      kind: 'questions',
      id: call.id,
      toolName: call.name,
      toolCallId: call.id,
      ...(parsed.data.title !== undefined ? { title: parsed.data.title } : {}),
      questions: parsed.data.questions,
    },
  };
}
