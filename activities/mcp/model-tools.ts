import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { McpClientPool, ServerToolList } from './client-pool';

/** A toolset as a model call names it: which server's list, at which version, with which name prefix. */
export interface ModelToolsetRef {
  readonly server: string;
  readonly version: string;
  readonly prefix?: string;
}

/**
 * Resolves the MCP tools a model call offers to function specs, from the lists this worker's pool
 * has seen: the run's snapshot version when the worker knows it, else the server's current list
 * (a worker that restarted since the run listed). Names no list has are left out (undefined).
 */
export function mcpModelTools(pool: McpClientPool) {
  return async (refs: readonly ModelToolsetRef[], names: readonly string[]): Promise<Map<string, ChatCompletionFunctionTool>> => {
    const found = new Map<string, ChatCompletionFunctionTool>();
    for (const ref of refs) {
      if (!pool.has(ref.server)) continue;
      const list: ServerToolList = pool.knownList(ref.server, ref.version) ?? (await pool.listTools(ref.server));
      const prefix = ref.prefix ?? '';
      for (const name of names) {
        if (found.has(name) || !name.startsWith(prefix)) continue;
        const tool = list.tools.find((t) => t.name === name.slice(prefix.length));
        if (!tool) continue;
        const parameters: Record<string, unknown> = { ...tool.inputSchema };
        delete parameters.$schema;
        found.set(name, { type: 'function', function: { name, description: tool.description ?? '', parameters } });
      }
    }
    return found;
  };
}
