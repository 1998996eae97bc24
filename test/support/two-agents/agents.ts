/**
 * Two agents that each have a tool named `search`, with different schemas and implementations:
 * tool activity types are namespaced per agent, so they coexist in one bundle and one worker.
 */
import { z } from 'zod';
import { createScriptedPlanner, defineAgent, defineTool } from 'durable-agents/workflow';

export const docsSearch = defineTool({ name: 'search', description: 'Search the docs', input: z.object({ query: z.string() }) });
export const webSearch = defineTool({ name: 'search', description: 'Search the web', input: z.object({ q: z.string(), limit: z.number().int().default(3) }) });

export const docsAgent = defineAgent({ name: 'docs', description: 'Answers from the docs', tools: [docsSearch], createPlanner: createScriptedPlanner });
export const webAgent = defineAgent({ name: 'web', description: 'Answers from the web', tools: [webSearch], createPlanner: createScriptedPlanner });
