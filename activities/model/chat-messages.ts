import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { JsonValue, Message } from '../../contracts';

/**
 * Argument text of a tool call in the transcript. Arguments that were not JSON reach the
 * transcript as the model's raw string (see the planner), and go back to the model as sent.
 */
function argumentsText(args: JsonValue): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

/** One run message as a Chat Completions message. */
export function toChatMessage(message: Message): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant': {
      const calls = message.toolCalls ?? [];
      // An empty string, not null, when the model only called tools: some servers refuse
      // `content: null` (and every later turn of the run with it); all accept "".
      return {
        role: 'assistant',
        content: message.content ?? '',
        ...(calls.length
          ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: argumentsText(c.args) } })) }
          : {}),
      };
    }
  }
}

/** The request's messages: rendered system instructions first, then the conversation. */
export function toChatMessages(instructions: string | undefined, messages: readonly Message[]): ChatCompletionMessageParam[] {
  return [...(instructions ? [{ role: 'system' as const, content: instructions }] : []), ...messages.map(toChatMessage)];
}
