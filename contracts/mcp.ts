import { z } from 'zod';
import { builtOnce } from './lazy';
import { jsonObjectSchema } from './json';
import { toolActivityInputSchema } from './tools';

/** Activity type that lists the tools of an MCP server (reserved; see reservedActivityNames). */
export const mcpListToolsActivityName = 'mcp.listTools';
/** Activity type of every MCP tool call (reserved; see reservedActivityNames). */
export const mcpCallToolActivityName = 'mcp.callTool';

/** One tool of an MCP server as a run knows it: what the model is told and what the server is asked. */
export const mcpToolSpecSchema = builtOnce(() =>
  z.object({
    /** The name the agent (and its model) uses: the toolset's prefix + the server's name for it. */
    name: z.string().min(1),
    /** The server's name of the tool. */
    mcpName: z.string().min(1),
    description: z.string(),
    /** JSON Schema of the arguments, as the server declared it. */
    inputSchema: jsonObjectSchema(),
  }),
);
export type McpToolSpec = z.infer<ReturnType<typeof mcpToolSpecSchema>>;

/**
 * A toolset's tool list as one run uses it: fetched by an activity (so replay sees the same
 * list), kept in run state and carried across continue-as-new. `version` is a content hash of the
 * server's whole tool list: it changes when the server's list does.
 */
export const toolsetSnapshotSchema = builtOnce(() =>
  z.object({
    server: z.string().min(1),
    version: z.string().min(1),
    tools: z.array(mcpToolSpecSchema()),
  }),
);
export type ToolsetSnapshot = z.infer<ReturnType<typeof toolsetSnapshotSchema>>;

/** Input of the `mcp.listTools` activity. */
export const mcpListToolsInputSchema = builtOnce(() =>
  z.object({
    server: z.string().min(1),
    toolset: z.string().min(1),
    include: z.array(z.string()).optional(),
    exclude: z.array(z.string()).optional(),
    prefix: z.string().optional(),
  }),
);
export type McpListToolsInput = z.infer<ReturnType<typeof mcpListToolsInputSchema>>;

/** What `mcp.listTools` returns: the filtered list, the version of the server's whole list, and how many tools the server has. */
export const mcpListToolsResultSchema = builtOnce(() =>
  z.object({
    version: z.string().min(1),
    tools: z.array(mcpToolSpecSchema()),
    /** Tools the server offers before filters. */
    total: z.number().int().nonnegative(),
  }),
);
export type McpListToolsResult = z.infer<ReturnType<typeof mcpListToolsResultSchema>>;

/** Input of `mcp.callTool`: a tool activity's input plus which server tool to call. */
export const mcpCallToolInputSchema = builtOnce(() =>
  toolActivityInputSchema().extend({
    mcp: z.object({ server: z.string().min(1), tool: z.string().min(1), toolset: z.string().min(1) }),
  }),
);
export type McpCallToolInput = z.infer<ReturnType<typeof mcpCallToolInputSchema>>;
