import type { ChatCompletionCreateParamsBase, ChatCompletionFunctionTool, ChatCompletionMessageParam, ChatCompletionToolChoiceOption } from 'openai/resources/chat/completions';
import type { ResponseFormatJSONSchema } from 'openai/resources/shared';
import type { Message } from '../../contracts';
import type { ParsedModelCallInput } from '../../contracts/model-call';
import type { ModelRequestSettings } from '../../workflows/planners/llm';
import type { AgentModelSpecs } from './agent-schemas';
import { toChatMessage, toChatMessages } from './chat-messages';

/** How an output schema is asked for in one request. */
export type StructuredOutputMode = 'json_schema' | 'prompt';

/** The request of one call, without `stream`: the caller picks streaming or not. */
export type ModelRequest = Omit<ChatCompletionCreateParamsBase, 'stream' | 'stream_options'>;

/** Builds the requests of one call; `structuredOutput` is what to try first. */
export interface ModelRequestPlan {
  readonly settings: ModelRequestSettings;
  /** Set when the call asks for structured output. */
  readonly structuredOutput?: StructuredOutputMode;
  build(conversation: readonly Message[], mode: StructuredOutputMode | undefined): ModelRequest;
}

function toolChoice(choice: NonNullable<ModelRequestSettings['toolChoice']>): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/** The system instructions with the output schema added, for servers without `json_schema`. */
function schemaPrompt(instructions: string | undefined, format: ResponseFormatJSONSchema): string {
  const { name, description, schema } = format.json_schema;
  const ask =
    `When you give your final answer, reply with only a JSON value (no prose, no code fence) that matches the JSON Schema "${name}"` +
    `${description ? ` (${description})` : ''}:\n${JSON.stringify(schema)}`;
  return instructions ? `${instructions}\n\n${ask}` : ask;
}

/**
 * Plans the Chat Completions request of a call from its input and the agent's spec on this
 * worker: messages, tool schemas, output format and the agent's request settings. Tool settings
 * go only on turns that offer tools (a Finalize turn offers none). In `prompt` mode the schema
 * joins the leading system message (some chat templates refuse a system message anywhere else).
 *
 * @throws ApplicationFailure `model_config` when the worker lacks the agent's schemas.
 */
export function planModelRequest(input: ParsedModelCallInput, specs: AgentModelSpecs, mcpTools?: ReadonlyMap<string, ChatCompletionFunctionTool>): ModelRequestPlan {
  const tools = specs.tools(input.agent, input.tools, mcpTools);
  const responseFormat = input.outputSchema ? specs.responseFormat(input.agent, input.outputSchema) : undefined;
  const settings = specs.requestSettings(input.agent);
  const build = (conversation: readonly Message[], mode: StructuredOutputMode | undefined): ModelRequest => {
    const instructions = responseFormat && mode === 'prompt' ? schemaPrompt(input.instructions, responseFormat) : input.instructions;
    const messages: ChatCompletionMessageParam[] = [...toChatMessages(instructions, conversation), ...input.extraMessages.map(toChatMessage)];
    return {
      model: input.model,
      messages,
      ...(tools.length ? { tools } : {}),
      ...(tools.length && settings.toolChoice !== undefined ? { tool_choice: toolChoice(settings.toolChoice) } : {}),
      ...(tools.length && settings.parallelToolCalls !== undefined ? { parallel_tool_calls: settings.parallelToolCalls } : {}),
      ...(settings.maxTokens !== undefined ? { max_tokens: settings.maxTokens } : {}),
      ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
      ...(responseFormat && mode === 'json_schema' ? { response_format: responseFormat } : {}),
    };
  };
  return { settings, ...(responseFormat ? { structuredOutput: settings.structuredOutput ?? 'json_schema' } : {}), build };
}
