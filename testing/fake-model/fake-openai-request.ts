import { z } from 'zod';
import { describeIssues } from '../../contracts';

const toolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const chatMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('developer'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string().nullable().optional(), tool_calls: z.array(toolCallSchema).min(1).optional() }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string().min(1), content: z.string() }),
]);
export type FakeChatMessage = z.infer<typeof chatMessageSchema>;

/** The subset of a Chat Completions request the fake understands (and checks, like a provider would). */
export const fakeChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(chatMessageSchema).min(1),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).optional(),
  tools: z
    .array(z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1), description: z.string().optional(), parameters: z.record(z.string(), z.unknown()).optional() }) }))
    .min(1)
    .optional(),
  response_format: z
    .object({ type: z.literal('json_schema'), json_schema: z.object({ name: z.string().min(1), schema: z.record(z.string(), z.unknown()).optional(), strict: z.boolean().nullable().optional() }) })
    .optional(),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }) })]).optional(),
  parallel_tool_calls: z.boolean().optional(),
});
export type FakeChatRequest = z.infer<typeof fakeChatRequestSchema>;

/**
 * Why a provider would reject these messages, or undefined: every assistant tool call must be
 * answered by a tool message before the conversation goes on, and no tool message may answer
 * a call that is not open (the "mismatched tool calls" failure of real providers).
 */
export function toolPairingProblem(messages: readonly FakeChatMessage[]): string | undefined {
  let open = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      if (!open.delete(message.tool_call_id)) return `messages[${index}]: tool message answers ${message.tool_call_id}, which is not an open tool call`;
      continue;
    }
    if (open.size) return `messages[${index}]: tool calls ${[...open].join(', ')} were not answered before a ${message.role} message`;
    if (message.role === 'assistant' && message.tool_calls) open = new Set(message.tool_calls.map((c) => c.id));
  }
  return open.size ? `tool calls ${[...open].join(', ')} are not answered at the end of the conversation` : undefined;
}

/** Why a server that wants string content would reject these messages (an assistant `content: null`), or undefined. */
export function nullContentProblem(messages: readonly FakeChatMessage[]): string | undefined {
  const index = messages.findIndex((m) => m.role === 'assistant' && m.content === null);
  return index >= 0 ? `messages[${index}].content: expected a string, got null` : undefined;
}

/**
 * Parses and checks a request body; answers the problem a provider would report with a 400.
 * `rejectNullContent` also refuses an assistant message whose content is null.
 */
export function parseChatRequest(raw: string, options: { rejectNullContent?: boolean } = {}): { ok: true; request: FakeChatRequest } | { ok: false; problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, problem: 'request body is not JSON' };
  }
  const parsed = fakeChatRequestSchema.safeParse(json);
  if (!parsed.success) return { ok: false, problem: `invalid chat request: ${describeIssues(parsed.error)}` };
  const problem = toolPairingProblem(parsed.data.messages) ?? (options.rejectNullContent ? nullContentProblem(parsed.data.messages) : undefined);
  return problem ? { ok: false, problem } : { ok: true, request: parsed.data };
}
