import { isCancellation, proxyActivities, ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { describeIssues } from '../contracts/json';
import { mcpListToolsActivityName, mcpListToolsResultSchema, type McpListToolsInput, type McpListToolsResult } from '../contracts/mcp';
import type { RunState } from './run-state';

type ListTools = (input: McpListToolsInput) => Promise<McpListToolsResult>;

function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? (err.cause ?? err) : err;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
}

/**
 * Fetches the lists of the toolsets that need it (`mcp.listTools`, one activity each) and takes
 * them as the run's snapshots, logging `tools_updated` when a list changed. A fetch that fails
 * leaves the previous snapshot in place (or none: the toolset's tools are unknown until a later
 * turn fetches them) and says so in a note; it never fails the run.
 *
 * @throws the cancellation when the run is killed meanwhile.
 */
export async function syncToolsets(state: RunState): Promise<void> {
  for (const { definition, reason } of state.toolsets.due()) {
    const listTools = proxyActivities<Record<string, ListTools>>({
      startToCloseTimeout: Math.min(definition.timeoutMs, 60_000),
      retry: { maximumAttempts: 3, initialInterval: 1000, backoffCoefficient: 2, nonRetryableErrorTypes: ['mcp_config', 'invalid_input'] },
      summary: `turn ${state.turn}: list tools of ${definition.name} (MCP ${definition.server})`,
    })[mcpListToolsActivityName];
    if (!listTools) throw new Error(`no activity proxy for ${mcpListToolsActivityName}`);
    let result: McpListToolsResult;
    try {
      const parsed = mcpListToolsResultSchema().safeParse(
        await listTools({
          server: definition.server,
          toolset: definition.name,
          ...(definition.include ? { include: [...definition.include] } : {}),
          ...(definition.exclude ? { exclude: [...definition.exclude] } : {}),
          ...(definition.prefix ? { prefix: definition.prefix } : {}),
        }),
      );
      if (!parsed.success) throw new Error(`mcp.listTools returned an invalid result: ${describeIssues(parsed.error)}`);
      result = parsed.data;
    } catch (err) {
      if (isCancellation(err)) throw err;
      state.toolsets.clear(definition.name);
      const kept = reason === 'initial' ? 'its tools are unavailable until a later turn lists them' : 'the run keeps its previous list';
      state.emit({ type: 'note', turn: state.turn, note: { text: `could not list the tools of toolset ${definition.name} (MCP server ${definition.server}): ${failureMessage(err)}; ${kept}`, labels: { kind: 'toolset_unavailable', toolset: definition.name } } });
      continue;
    }
    const { event, shadowed } = state.toolsets.apply(definition, result, reason);
    if (shadowed.length) {
      state.emit({ type: 'note', turn: state.turn, note: { text: `toolset ${definition.name}: left out ${shadowed.join(', ')}, whose names other tools of the agent already use (give the toolset a prefix)`, labels: { kind: 'toolset_shadowed', toolset: definition.name } } });
    }
    if (event) state.emit(event);
  }
}
