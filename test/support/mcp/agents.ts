/**
 * Agents that mix a local tool with a toolset from the MCP reference server ("everything"),
 * reached over stdio by one and over streamable HTTP by the other. Definitions only (bundled).
 */
import { z } from 'zod';
import { createScriptedPlanner, defineAgent, defineLlmAgent, defineTool, mcpToolset } from 'durable-agents/workflow';

export const noteTool = defineTool({ name: 'note', description: 'Keep a note', input: z.object({ text: z.string() }) });

/** The reference server's tools this toolset keeps: `get-*` but get-env and get-tiny-image, and three more. */
function everythingToolset(server: string) {
  return mcpToolset({
    name: 'everything',
    server,
    include: ['echo', 'get-*', 'trigger-long-running-operation', 'gzip-file-as-resource'],
    exclude: ['get-env', 'get-tiny-image'],
    approval: { tools: { 'get-sum': true } },
    retry: { maximumAttempts: 2, initialIntervalMs: 200 },
    timeoutMs: 30_000,
  });
}

export const mcpStdioAgent = defineAgent({
  name: 'mcp-stdio',
  description: 'Uses the MCP reference server over stdio',
  tools: [noteTool],
  toolsets: [everythingToolset('everything-stdio')],
  createPlanner: createScriptedPlanner,
});

export const mcpHttpAgent = defineAgent({
  name: 'mcp-http',
  description: 'Uses the MCP reference server over streamable HTTP',
  tools: [noteTool],
  toolsets: [everythingToolset('everything-http')],
  createPlanner: createScriptedPlanner,
});

/** Tools from a server whose list changes while runs use it (see changing-server.mjs). */
export const mcpChangingAgent = defineAgent({
  name: 'mcp-changing',
  description: 'Uses a server that adds tools on request',
  tools: [],
  toolsets: [mcpToolset({ server: 'changing', prefix: 'ch_' })],
  createPlanner: createScriptedPlanner,
});

/** Planned by a model: the model is offered the local tool and the toolset's tools with their JSON Schemas. */
export const mcpLlmAgent = defineLlmAgent({
  name: 'mcp-llm',
  description: 'A model that uses MCP tools beside a local one',
  instructions: 'Use the tools.',
  tools: [noteTool],
  toolsets: [mcpToolset({ server: 'everything-stdio', include: ['echo', 'get-sum'] })],
  llm: { model: 'fake-model' },
});

export const mcpAgents = [mcpStdioAgent, mcpHttpAgent, mcpChangingAgent, mcpLlmAgent];
