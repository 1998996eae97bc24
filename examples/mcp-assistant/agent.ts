/**
 * The MCP example's agents: a local `remember` tool and the tools of an MCP server (the
 * reference server, "everything") in one agent. The server's connection is the worker's business
 * (worker.ts); the agent names only the server and which of its tools it wants.
 */
import { z } from 'zod';
import { createScriptedPlanner, defineAgent, defineLlmAgent, defineTool, mcpToolset } from 'durable-agents/workflow';

export const rememberTool = defineTool({
  name: 'remember',
  description: 'Remember a fact for the rest of the session',
  input: () => z.object({ fact: z.string().min(1) }),
  sessionKeys: ['facts'],
  // Every tool heartbeats on its own while it runs: a call whose worker died is retried on another
  // within 5 s instead of after its 60 s timeout (docs/agents-and-tools.md, "Tools").
  heartbeatTimeoutMs: 5_000,
});

/** Three of the server's tools; sums need a human's approval (a stand-in for a tool with side effects). */
export const everythingTools = mcpToolset({
  server: 'everything',
  include: ['echo', 'get-sum', 'trigger-long-running-operation'],
  approval: { tools: { 'get-sum': true } },
  timeoutMs: 30_000,
  retry: { maximumAttempts: 3 },
});

const shared = {
  description: 'Answers with its own memory and the tools of an MCP server',
  instructions: 'Use the tools. Facts you remembered so far: {facts}',
  tools: [rememberTool],
  toolsets: [everythingTools],
};

/** Planned by a model (OPENAI_* on the worker). */
export const mcpAssistant = defineLlmAgent({ name: 'mcp-assistant', ...shared, llm: { model: 'gpt-4o-mini' } });

/** The same agent planned by a script (runs without a model: tests, demos). */
export const mcpAssistantScripted = defineAgent({ name: 'mcp-assistant-scripted', ...shared, createPlanner: createScriptedPlanner });

export const mcpAssistantAgents = [mcpAssistant, mcpAssistantScripted];
