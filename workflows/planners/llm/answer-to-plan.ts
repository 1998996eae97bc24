import { describeIssues, jsonValueSchema, type JsonValue } from '../../../contracts/json';
import type { AwaitItem, PlannerNote, PlanResult, Termination } from '../../../contracts/plan';
import type { Message } from '../../../contracts/messages';
import type { ToolCall } from '../../../contracts/tools';
import type { OutputSchemaDefinition } from './config';
import { humanCallToAwaitItem, type HumanCall, type HumanTool } from './human-tools';
import type { ModelAnswer } from '../../../contracts/model-call';

/** What the planner knows when it reads an answer. */
export interface AnswerContext {
  readonly turn: number;
  readonly finalize?: Termination;
  /** Human tools offered this turn. */
  readonly humanTools: readonly HumanTool[];
  readonly outputSchema?: OutputSchemaDefinition;
}

/**
 * The next step after a model answer: a plan for the runtime, or a repair turn (the listed
 * messages go back to the model, which tries again within the same planner turn).
 */
export type AnswerStep = { type: 'plan'; plan: PlanResult } | { type: 'repair'; messages: Message[]; problem: string };

const noteLabels = { planner: 'llm' };
const maxNoteChars = 2_000;

/**
 * Decodes a tool call's raw argument text. Text that is not JSON is kept as the raw string:
 * it fails the tool's object schema in the runtime, which answers the call with an
 * `invalid_arguments` tool result the model sees on its next turn. Empty text means `{}`.
 */
export function parseToolArguments(raw: string): { args: JsonValue; malformed: boolean } {
  if (raw.trim() === '') return { args: {}, malformed: false };
  try {
    return { args: JSON.parse(raw) as JsonValue, malformed: false };
  } catch {
    return { args: raw, malformed: true };
  }
}

function note(text: string, kind: string): PlannerNote {
  return { text: text.length > maxNoteChars ? `${text.slice(0, maxNoteChars)}…` : text, labels: { ...noteLabels, kind } };
}

function withNotes(plan: PlanResult, notes: PlannerNote[]): PlanResult {
  return notes.length ? { ...plan, notes } : plan;
}

function humanStep(humanCalls: readonly HumanCall[], others: readonly ToolCall[], content: string | undefined): AnswerStep {
  const mapped = humanCalls.map((call) => ({ call, mapping: humanCallToAwaitItem(call) }));
  const problems = mapped.flatMap(({ mapping }) => (mapping.ok ? [] : [mapping.message]));
  if (problems.length) {
    const reply = (ok: boolean, message: string): string =>
      JSON.stringify({ error: ok ? { type: 'rejected', message: 'not asked: another question in the same answer was invalid; ask again' } : { type: 'invalid_arguments', message } });
    return {
      type: 'repair',
      problem: problems.join('; '),
      messages: [
        { role: 'assistant', ...(content ? { content } : {}), toolCalls: humanCalls.map((c) => ({ id: c.id, name: c.name, args: c.args as JsonValue })) },
        ...mapped.map(({ call, mapping }): Message => ({ role: 'tool', toolCallId: call.id, name: call.name, content: reply(mapping.ok, mapping.ok ? '' : mapping.message) })),
      ],
    };
  }
  const items = mapped.flatMap(({ mapping }): AwaitItem[] => (mapping.ok ? [mapping.item] : []));
  const notes = others.length
    ? [note(`asking a human first; not running ${others.map((c) => c.name).join(', ')} from the same answer (the model may call them again)`, 'deferred_calls')]
    : [];
  return { type: 'plan', plan: withNotes({ type: 'await', await: { items } }, notes) };
}

function toolCallsStep(answer: ModelAnswer, ctx: AnswerContext): AnswerStep {
  const humanNames = new Set<string>(ctx.humanTools.map((t) => t.name));
  const notes: PlannerNote[] = [];
  const humanCalls: HumanCall[] = [];
  const calls: ToolCall[] = [];
  answer.toolCalls.forEach((raw, index) => {
    const id = raw.id ?? `call_${ctx.turn}_${index}`;
    const { args, malformed } = parseToolArguments(raw.arguments);
    if (humanNames.has(raw.name)) {
      humanCalls.push({ id, name: raw.name as HumanCall['name'], args });
      return;
    }
    if (malformed) notes.push(note(`model sent malformed JSON arguments for ${raw.name} (${id}); the tool will answer invalid_arguments`, 'malformed_arguments'));
    calls.push({ id, name: raw.name, args });
  });
  if (humanCalls.length) return humanStep(humanCalls, calls, answer.content);
  return { type: 'plan', plan: withNotes({ type: 'tool_calls', calls, ...(answer.content ? { text: answer.content } : {}) }, notes) };
}

function structuredStep(content: string, schema: OutputSchemaDefinition): AnswerStep {
  const retry = (problem: string): AnswerStep => ({
    type: 'repair',
    problem,
    messages: [
      { role: 'assistant', content },
      { role: 'user', content: `Runtime notice: ${problem}. Reply again with only a JSON value matching the output schema "${schema.name}".` },
    ],
  });
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (err) {
    return retry(`your answer is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const checked = schema.schema.safeParse(json);
  if (!checked.success) return retry(`your answer does not match the output schema "${schema.name}": ${describeIssues(checked.error)}`);
  // Keep the schema's output (defaults applied) when it is plain JSON; otherwise the JSON as sent.
  const output = jsonValueSchema().safeParse(checked.data);
  const structured = output.success ? output.data : (json as JsonValue);
  return { type: 'plan', plan: { type: 'final', response: { text: content, structured } } };
}

/**
 * Maps a model answer to the planner's next step. Pure: unit-testable without a server.
 *
 * - tool calls → `tool_calls` (ids from the model; malformed argument JSON passed on as the raw string);
 * - a human-tool call → `await` with an item bound to the call (other calls of that answer are deferred);
 * - text → `final`; with an output schema the text must be JSON matching it, else a repair turn;
 * - on a Finalize turn tool calls are ignored and the text is the final answer.
 */
export function answerToStep(answer: ModelAnswer, ctx: AnswerContext): AnswerStep {
  if (answer.toolCalls.length && !ctx.finalize) return toolCallsStep(answer, ctx);
  const content = answer.content ?? '';
  if (ctx.outputSchema) return structuredStep(content, ctx.outputSchema);
  if (ctx.finalize && !content) {
    return { type: 'plan', plan: { type: 'final', response: { text: `Run ended (${ctx.finalize.reason}): ${ctx.finalize.message}.` } } };
  }
  return { type: 'plan', plan: { type: 'final', response: { text: content } } };
}

/** The message that tells the model why this turn must end the run. */
export function finalizeNotice(finalize: Termination): Message {
  return {
    role: 'user',
    content: `Runtime notice: the run must end now (${finalize.reason}: ${finalize.message}). No tools are available any more; give your final answer from what you know.`,
  };
}
