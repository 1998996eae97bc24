import { z } from 'zod';
import { toolApproval, type McpToolsetDefinition } from '../../contracts/mcp-toolset';
import type { McpListToolsResult, McpToolSpec, ToolsetSnapshot } from '../../contracts/mcp';
import type { RunEventDraft } from '../../contracts/events';
import type { ToolDefinition } from '../../contracts/tool-definition';

/** Why a toolset's list is fetched (again). */
export type ToolsetRefreshReason = 'initial' | 'list_changed' | 'requested';

/** What the planner is told about a toolset on a turn (see PlannerContext.toolsets). */
export interface ToolsetView {
  readonly toolset: string;
  readonly server: string;
  readonly version: string;
  readonly prefix?: string;
  /** The names the agent uses for the toolset's tools. */
  readonly tools: readonly string[];
}

/**
 * The argument schema of an MCP tool from its JSON Schema: zod's own conversion, or, when the
 * schema uses what that does not support (e.g. `$ref`s to missing definitions), any JSON object;
 * the server still validates the arguments itself.
 */
export function inputSchemaOf(jsonSchema: Record<string, unknown>): { schema: z.ZodType; converted: boolean } {
  try {
    const rest: Record<string, unknown> = { ...jsonSchema };
    delete rest.$schema;
    return { schema: z.fromJSONSchema(rest as Parameters<typeof z.fromJSONSchema>[0]), converted: true };
  } catch {
    return { schema: z.record(z.string(), z.unknown()), converted: false };
  }
}

/** A run's tool definition for one tool of an MCP toolset. */
export function toolFromSpec(toolset: McpToolsetDefinition, spec: McpToolSpec): ToolDefinition {
  return {
    name: spec.name,
    description: spec.description,
    input: inputSchemaOf(spec.inputSchema).schema,
    timeoutMs: toolset.timeoutMs,
    heartbeatTimeoutMs: toolset.heartbeatTimeoutMs,
    retry: toolset.retry,
    requiresConfirmation: toolApproval(toolset.approval, spec.mcpName),
    mcp: { server: toolset.server, toolset: toolset.name, tool: spec.mcpName },
  };
}

/**
 * The MCP toolsets of one run: their snapshots (from `mcp.listTools` results, so replay sees the
 * same lists), which must be fetched again before the next planner turn, and the run's tool
 * definitions built from them. Pure state; the run loop fetches (see RunLoop.syncToolsets).
 */
export class RunToolsets {
  private readonly snapshots: Record<string, ToolsetSnapshot>;
  private readonly refresh: Record<string, 'list_changed' | 'requested'>;
  private cached: { key: string; tools: readonly ToolDefinition[] } | undefined;

  constructor(
    readonly definitions: readonly McpToolsetDefinition[],
    private readonly localTools: readonly ToolDefinition[],
    carried?: { toolsets?: Record<string, ToolsetSnapshot>; toolsetRefresh?: Record<string, 'list_changed' | 'requested'> },
  ) {
    this.snapshots = { ...carried?.toolsets };
    this.refresh = { ...carried?.toolsetRefresh };
  }

  get isEmpty(): boolean {
    return this.definitions.length === 0;
  }

  /** Toolsets to fetch before the next planner turn: never fetched, or flagged. */
  due(): { definition: McpToolsetDefinition; reason: ToolsetRefreshReason }[] {
    return this.definitions.flatMap((definition): { definition: McpToolsetDefinition; reason: ToolsetRefreshReason }[] => {
      if (!this.snapshots[definition.name]) return [{ definition, reason: 'initial' as const }];
      const reason = this.refresh[definition.name];
      return reason ? [{ definition, reason }] : [];
    });
  }

  /** Asks for a fresh list of one toolset (or all) before the next planner turn. */
  request(toolset?: string): void {
    for (const d of this.definitions) if (toolset === undefined || d.name === toolset) this.refresh[d.name] = 'requested';
  }

  /** Notes the server's list version a call reported: a different one means the server's list changed. */
  observe(toolset: string, version: string | undefined): void {
    const current = this.snapshots[toolset];
    if (version !== undefined && current && current.version !== version && !this.refresh[toolset]) this.refresh[toolset] = 'list_changed';
  }

  /** Drops a refresh request (the fetch failed; the run keeps its snapshot). */
  clear(toolset: string): void {
    delete this.refresh[toolset];
  }

  /**
   * Takes a fetched list as the toolset's snapshot. Tools whose names the agent's local tools or
   * another toolset already use are left out (they are reported in `shadowed`). Returns the
   * `tools_updated` event, or undefined when the list did not change (a requested refresh is
   * always reported).
   */
  apply(definition: McpToolsetDefinition, result: McpListToolsResult, reason: ToolsetRefreshReason): { event?: RunEventDraft; shadowed: string[] } {
    delete this.refresh[definition.name];
    const taken = new Set([...this.localTools.map((t) => t.name), ...this.otherToolNames(definition.name)]);
    const shadowed = result.tools.filter((t) => taken.has(t.name)).map((t) => t.name);
    const previous = this.snapshots[definition.name];
    const snapshot: ToolsetSnapshot = { server: definition.server, version: result.version, tools: result.tools.filter((t) => !taken.has(t.name)) };
    const unchanged = previous !== undefined && previous.version === snapshot.version && JSON.stringify(previous.tools) === JSON.stringify(snapshot.tools);
    // An operator who asked for a refresh sees its outcome, also when the list is the same.
    if (unchanged && reason !== 'requested') return { shadowed };
    this.snapshots[definition.name] = snapshot;
    return {
      shadowed,
      event: {
        type: 'tools_updated',
        toolset: definition.name,
        server: definition.server,
        version: snapshot.version,
        ...(previous ? { previousVersion: previous.version } : {}),
        tools: snapshot.tools.map((t) => t.name),
        reason,
      },
    };
  }

  private otherToolNames(toolset: string): string[] {
    return Object.entries(this.snapshots).flatMap(([name, s]) => (name === toolset ? [] : s.tools.map((t) => t.name)));
  }

  /** The run's tools: the agent's local tools, then each toolset's (built once per snapshot change). */
  tools(): readonly ToolDefinition[] {
    if (this.isEmpty) return this.localTools;
    const key = this.definitions.map((d) => `${d.name}@${this.snapshots[d.name]?.version ?? '-'}`).join(',');
    if (this.cached?.key === key) return this.cached.tools;
    const tools = [
      ...this.localTools,
      ...this.definitions.flatMap((d) => (this.snapshots[d.name]?.tools ?? []).map((spec) => toolFromSpec(d, spec))),
    ];
    this.cached = { key, tools };
    return tools;
  }

  /** What the planner sees of the toolsets this turn; undefined for agents without toolsets. */
  views(): ToolsetView[] | undefined {
    if (this.isEmpty) return undefined;
    return this.definitions.flatMap((d) => {
      const s = this.snapshots[d.name];
      return s ? [{ toolset: d.name, server: s.server, version: s.version, ...(d.prefix ? { prefix: d.prefix } : {}), tools: s.tools.map((t) => t.name) }] : [];
    });
  }

  /** The part of the carried state that is the toolsets'; empty for agents without toolsets. */
  toCarried(): { toolsets?: Record<string, ToolsetSnapshot>; toolsetRefresh?: Record<string, 'list_changed' | 'requested'> } {
    if (this.isEmpty) return {};
    return { toolsets: { ...this.snapshots }, ...(Object.keys(this.refresh).length ? { toolsetRefresh: { ...this.refresh } } : {}) };
  }
}
