// A small MCP server (stdio) built with the official SDK whose tool list changes on request:
// `add_tool { name }` registers a tool `name` that answers "<name> works", and the SDK sends
// notifications/tools/list_changed to the client.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'changing', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
server.registerTool('add_tool', { description: 'Adds a tool to this server', inputSchema: { name: z.string().regex(/^[a-z_]+$/) } }, async ({ name }) => {
  server.registerTool(name, { description: `Added at run time: ${name}`, inputSchema: {} }, async () => ({ content: [{ type: 'text', text: `${name} works` }] }));
  return { content: [{ type: 'text', text: `added ${name}` }] };
});
// Answers with the idempotency key the client sent in the request's _meta.
server.registerTool('meta', { description: 'Shows the idempotency key of this call', inputSchema: {} }, async (_args, extra) => ({
  content: [{ type: 'text', text: String(extra._meta?.['durable-agents/idempotency-key'] ?? 'none') }],
}));
await server.connect(new StdioServerTransport());
