import type { ToolRetryPolicy } from './tool-definition';

/** Whether calls of a tool wait for a human's approval; a function decides per call (deterministically) from the arguments. */
export type ToolApproval = boolean | ((args: unknown) => boolean);

/**
 * Which of a toolset's calls wait for a human's approval: one policy for all of them, or a
 * policy per tool (by the server's tool name) with a `default` for the rest (default: none do).
 */
export type ToolsetApprovalPolicy = ToolApproval | { readonly default?: ToolApproval; readonly tools?: Readonly<Record<string, ToolApproval>> };

/**
 * A group of tools an agent gets from an MCP server. Pure data (safe in workflow code): the
 * server's connection (command, URL, credentials) is worker configuration
 * (`DurableAgentsPlugin({ mcpServers })`), never part of a run's history.
 */
export interface McpToolsetDefinition {
  readonly kind: 'mcp';
  /** Names the toolset in events and in `refresh_tools`; unique within an agent. */
  readonly name: string;
  /** Key of the server in the worker's `mcpServers`. */
  readonly server: string;
  /** Only these tools (server names; `*` matches any characters). Default: all. */
  readonly include?: readonly string[];
  /** Not these tools (applied after `include`). */
  readonly exclude?: readonly string[];
  /** Put before every tool name the agent sees (e.g. `fs_`), to keep names apart from other tools. */
  readonly prefix?: string;
  readonly approval?: ToolsetApprovalPolicy;
  /** Limit of one call attempt. Default 60 s. */
  readonly timeoutMs: number;
  readonly retry: ToolRetryPolicy;
  /** Calls heartbeat while waiting for the server; a missed heartbeat fails the attempt. Default 30 s. */
  readonly heartbeatTimeoutMs: number;
}

/** Options of {@link mcpToolset}. */
export type McpToolsetOptions = Omit<McpToolsetDefinition, 'kind' | 'name' | 'timeoutMs' | 'retry' | 'heartbeatTimeoutMs'> &
  Partial<Pick<McpToolsetDefinition, 'name' | 'timeoutMs' | 'retry' | 'heartbeatTimeoutMs'>>;

const toolsetNamePattern = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
const prefixPattern = /^[a-zA-Z][a-zA-Z0-9_-]{0,31}$/;

/**
 * Declares a group of tools from an MCP server for an agent's `toolsets`. The tool list itself is
 * fetched when a run first needs it and kept in the run as a versioned snapshot.
 *
 * @throws Error when the name, server or prefix is not an identifier, or a filter is empty.
 * @example
 * const files = mcpToolset({ server: 'files', include: ['read_*', 'list_directory'],
 *   approval: { tools: { write_file: true } }, timeoutMs: 30_000 });
 * defineAgent({ name: 'assistant', description: 'Works with files', tools: [], toolsets: [files], createPlanner: createScriptedPlanner });
 */
export function mcpToolset(options: McpToolsetOptions): McpToolsetDefinition {
  const name = options.name ?? options.server;
  if (!toolsetNamePattern.test(options.server)) throw new Error(`mcpToolset: invalid server name ${JSON.stringify(options.server)}; use letters, digits, _ and - (max 64)`);
  if (!toolsetNamePattern.test(name)) throw new Error(`mcpToolset: invalid toolset name ${JSON.stringify(name)}; use letters, digits, _ and - (max 64)`);
  if (options.prefix !== undefined && !prefixPattern.test(options.prefix)) {
    throw new Error(`mcpToolset ${name}: invalid prefix ${JSON.stringify(options.prefix)}; use letters, digits, _ and - (max 32)`);
  }
  for (const [key, list] of [['include', options.include], ['exclude', options.exclude]] as const) {
    if (list && list.some((p) => p.trim() === '')) throw new Error(`mcpToolset ${name}: ${key} has an empty pattern`);
  }
  return { timeoutMs: 60_000, retry: {}, heartbeatTimeoutMs: 30_000, ...options, kind: 'mcp', name };
}

/** Whether a tool name matches a filter pattern (`*` matches any run of characters). */
export function matchesToolPattern(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const parts = pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`).test(name);
}

/** Whether a toolset's filters keep a server tool: in `include` (if given) and not in `exclude`. */
export function isToolSelected(filters: { include?: readonly string[]; exclude?: readonly string[] }, name: string): boolean {
  if (filters.include && !filters.include.some((p) => matchesToolPattern(p, name))) return false;
  return !(filters.exclude ?? []).some((p) => matchesToolPattern(p, name));
}

/** The approval policy of one server tool under a toolset's policy. */
export function toolApproval(policy: ToolsetApprovalPolicy | undefined, mcpName: string): ToolApproval {
  if (policy === undefined) return false;
  if (typeof policy === 'boolean' || typeof policy === 'function') return policy;
  return policy.tools?.[mcpName] ?? policy.default ?? false;
}
