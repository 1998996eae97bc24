import { z } from 'zod';
import { builtOnce } from './lazy';
import { jsonValueSchema } from './json';

/** A tool call as it appears in an assistant message. */
export const messageToolCallSchema = builtOnce(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    args: jsonValueSchema(),
  }),
);

/** One conversation message. `tool` messages close the assistant tool call with the same id. */
export const messageSchema = builtOnce(() =>
  z.discriminatedUnion('role', [
    z.object({ role: z.literal('system'), content: z.string() }),
    z.object({ role: z.literal('user'), content: z.string() }),
    z.object({
      role: z.literal('assistant'),
      content: z.string().optional(),
      toolCalls: z.array(messageToolCallSchema()).optional(),
    }),
    z.object({ role: z.literal('tool'), toolCallId: z.string(), name: z.string(), content: z.string() }),
  ]),
);
export type Message = z.infer<ReturnType<typeof messageSchema>>;

/** Messages a caller may put in a run's input. */
export const inputMessageSchema = builtOnce(() =>
  z.object({
    role: z.enum(['user', 'system']),
    content: z.string().min(1, 'message content must not be empty'),
  }),
);
export type InputMessage = z.infer<ReturnType<typeof inputMessageSchema>>;
