import type { AgentDefinition } from '../../agents/agent-registry';
import type { LlmPlannerConfig } from './config';
import { assertValidLlmConfig } from './config';
import { enabledHumanTools } from './human-tools';
import { createLlmPlanner } from './llm-planner';

/** An agent planned by a model. The worker reads `llm` to build tool and output schemas. */
export interface LlmAgentDefinition extends AgentDefinition {
  readonly llm: LlmPlannerConfig;
}

/** Everything of an agent definition but its planner, plus the model configuration. */
export type LlmAgentOptions = Omit<AgentDefinition, 'createPlanner'> & { readonly llm: LlmPlannerConfig };

/**
 * Defines an agent whose planner is the LLM planner. Pass it to `createAgentWorkflows` and to the
 * worker like any other agent.
 *
 * @throws Error when the config is invalid or a tool takes the name of an enabled human tool.
 * @example
 * declare const addToWatchlist: ToolDefinition; // defineTool({ name: 'add_to_watchlist', … })
 * export const watchlistLlmAgent = defineLlmAgent({ name: 'watchlist-llm', description: '…', instructions: 'The watchlist is: {watchlist}',
 *   tools: [addToWatchlist], llm: { model: 'gpt-4o-mini', humanTools: { clarification: true } } });
 */
export function defineLlmAgent(options: LlmAgentOptions): LlmAgentDefinition {
  assertValidLlmConfig(options.name, options.llm);
  const toolNames = options.tools.map((t) => t.name);
  for (const human of enabledHumanTools(options.llm.humanTools)) {
    if (toolNames.includes(human.name)) throw new Error(`agent ${options.name}: tool ${human.name} clashes with the built-in human tool of that name`);
  }
  return { ...options, createPlanner: (raw) => createLlmPlanner({ toolNames, config: options.llm, options: raw }) };
}

/** True for an agent defined with {@link defineLlmAgent}. */
export function isLlmAgent(agent: AgentDefinition | undefined): agent is LlmAgentDefinition {
  return agent !== undefined && 'llm' in agent && typeof (agent as Partial<LlmAgentDefinition>).llm === 'object';
}
