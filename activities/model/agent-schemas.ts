import { ApplicationFailure } from '@temporalio/activity';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { ResponseFormatJSONSchema } from 'openai/resources/shared';
import { z } from 'zod';
import type { AgentDefinition } from '../../workflows/agents/agent-registry';
import { enabledHumanTools, isLlmAgent, type LlmAgentDefinition, type ModelRequestSettings } from '../../workflows/planners/llm';

/** What the provider is told about an agent: its function tools, its output format and its request settings. */
export interface AgentModelSpec {
  readonly tools: ReadonlyMap<string, ChatCompletionFunctionTool>;
  readonly responseFormat?: ResponseFormatJSONSchema;
  readonly request: ModelRequestSettings;
}

/** JSON Schema of a zod schema as the model sees it (the input side: defaults are optional). */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const json: Record<string, unknown> = { ...z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) };
  delete json.$schema;
  return json;
}

/** Builds the spec of an LLM agent from its definition: its tools, the enabled human tools, its output schema. */
export function agentModelSpec(agent: LlmAgentDefinition): AgentModelSpec {
  const tools = new Map<string, ChatCompletionFunctionTool>();
  for (const tool of [...agent.tools, ...enabledHumanTools(agent.llm.humanTools)]) {
    tools.set(tool.name, { type: 'function', function: { name: tool.name, description: tool.description, parameters: jsonSchemaOf(tool.input) } });
  }
  const output = agent.llm.outputSchema;
  return {
    tools,
    request: agent.llm.request ?? {},
    ...(output
      ? {
          responseFormat: {
            type: 'json_schema',
            // Not strict: strict mode accepts only a subset of JSON Schema; the planner validates anyway.
            json_schema: { name: output.name, ...(output.description ? { description: output.description } : {}), schema: jsonSchemaOf(output.schema), strict: false },
          },
        }
      : {}),
  };
}

/**
 * Agent specs derived once per agent from the definitions this worker was built with, so
 * activity inputs carry tool names only, never schemas.
 */
export class AgentModelSpecs {
  private readonly specs = new Map<string, AgentModelSpec>();

  constructor(private readonly findAgent: (name: string) => AgentDefinition | undefined) {}

  /**
   * The function tools to offer, by name, in the order given; `mcpTools` are those of the run's
   * MCP toolsets (see mcpModelTools).
   *
   * @throws ApplicationFailure `model_config` when the agent or a tool is unknown to this worker.
   */
  tools(agentName: string, names: readonly string[], mcpTools?: ReadonlyMap<string, ChatCompletionFunctionTool>): ChatCompletionFunctionTool[] {
    const spec = this.spec(agentName);
    return names.flatMap((name) => {
      const tool = spec.tools.get(name) ?? mcpTools?.get(name);
      // An MCP tool the server no longer lists (the run's snapshot is older): not offered; the run
      // refreshes its snapshot once a call reports the server's new list.
      if (!tool && mcpTools) return [];
      if (!tool) throw ApplicationFailure.nonRetryable(`agent ${agentName} has no tool ${name} on this worker; deploy workers with the same agent definitions as the workflow bundle`, 'model_config');
      return [tool];
    });
  }

  /**
   * The response format for an output schema name.
   *
   * @throws ApplicationFailure `model_config` when the agent declares no output schema of that name here.
   */
  responseFormat(agentName: string, schemaName: string): ResponseFormatJSONSchema {
    const format = this.spec(agentName).responseFormat;
    if (!format || format.json_schema.name !== schemaName) {
      throw ApplicationFailure.nonRetryable(`agent ${agentName} declares no output schema ${schemaName} on this worker; deploy workers with the same agent definitions`, 'model_config');
    }
    return format;
  }

  /**
   * The agent's request settings (see ModelRequestSettings).
   *
   * @throws ApplicationFailure `model_config` when the agent is unknown to this worker.
   */
  requestSettings(agentName: string): ModelRequestSettings {
    return this.spec(agentName).request;
  }

  private spec(agentName: string): AgentModelSpec {
    const cached = this.specs.get(agentName);
    if (cached) return cached;
    const agent = this.findAgent(agentName);
    if (!isLlmAgent(agent)) {
      throw ApplicationFailure.nonRetryable(`this worker knows no LLM agent named ${agentName}; deploy workers with the same agent definitions as the workflow bundle`, 'model_config');
    }
    const spec = agentModelSpec(agent);
    this.specs.set(agentName, spec);
    return spec;
  }
}
