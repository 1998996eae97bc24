import { activityInfo, ApplicationFailure, CancelledFailure, cancellationSignal, heartbeat } from '@temporalio/activity';
import {
  describeIssues,
  isToolSelected,
  jsonByteLength,
  mcpCallToolActivityName,
  mcpCallToolInputSchema,
  mcpListToolsActivityName,
  mcpListToolsInputSchema,
  resolveToolActivityInput,
  type McpListToolsResult,
  type ToolActivityResult,
} from '../../contracts';
import { resultPreviewChars, toolKeepAliveMs } from '../create-activities';
import { callResultToJson, errorResultText } from './call-result';
import { isConnectionFailure, type McpClientPool } from './client-pool';
import { mcpTypes } from './sdk';

/** The `_meta` key of a call's idempotency key: the same for every attempt of one call, across worker restarts. */
export const idempotencyMetaKey = 'durable-agents/idempotency-key';

/** The MCP runtime activities, for `createActivities({ runtime })`. */
export type McpActivities = Record<typeof mcpListToolsActivityName | typeof mcpCallToolActivityName, (input: unknown) => Promise<unknown>>;

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Maps a failure to reach or use a server to the ApplicationFailure the workflow sees. */
function serverFailure(server: string, err: unknown, what: string): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  if (/is not configured on this worker/.test(message(err))) return ApplicationFailure.nonRetryable(message(err), 'mcp_config');
  if (isConnectionFailure(err)) {
    return ApplicationFailure.create({
      message: `MCP server ${server} is unavailable (${what}, attempt ${activityInfo().attempt}): ${message(err)}; a retry, if the policy allows one, uses a new connection`,
      type: 'mcp_unavailable',
      details: [{ retryHint: { reason: 'tool_unavailable', message: `the MCP server ${server} could not be reached; try again later or do without its tools` } }],
    });
  }
  // The server answered with a JSON-RPC error (unknown tool, invalid params …): retrying will not help.
  const code = err instanceof mcpTypes().McpError ? ` (JSON-RPC error ${err.code})` : '';
  return ApplicationFailure.create({
    message: `MCP server ${server} refused ${what}${code}: ${message(err)}`,
    type: 'mcp_request_failed',
    nonRetryable: true,
    details: [{ retryHint: { reason: 'invalid_arguments', message: message(err) } }],
  });
}

/**
 * Builds the activities that list and call MCP tools through a worker's pool:
 *
 * - `mcp.listTools`: the server's list filtered by the toolset (include / exclude, prefix), with the
 *   version (content hash) of the whole list.
 * - `mcp.callTool`: one call, with the call's idempotency key in the request `_meta`, heartbeating
 *   (progress notifications are the details) so cancellation reaches it. A result with `isError` is
 *   a non-retryable `mcp_tool_error` failure carrying the server's text; an unreachable or dead
 *   server a retryable `mcp_unavailable` one (the next attempt reconnects, a stdio server is
 *   started again). Results carry the server's current list version, so the run notices a
 *   `list_changed` notification.
 *
 * @example
 * declare const pool: McpClientPool;
 * new DurableAgentsPlugin({ agents: [], tools: [], runtime: { ...createModelActivities(), ...createMcpActivities(pool) } });
 */
export function createMcpActivities(pool: McpClientPool): McpActivities {
  const listTools = async (raw: unknown): Promise<McpListToolsResult> => {
    const parsed = mcpListToolsInputSchema.safeParse(raw);
    if (!parsed.success) throw ApplicationFailure.nonRetryable(`invalid mcp.listTools input: ${describeIssues(parsed.error)}`, 'invalid_input');
    const input = parsed.data;
    let list;
    try {
      list = await pool.listTools(input.server);
    } catch (err) {
      throw serverFailure(input.server, err, 'listing its tools');
    }
    const prefix = input.prefix ?? '';
    const tools = list.tools
      .filter((t) => isToolSelected(input, t.name))
      .map((t) => ({ name: `${prefix}${t.name}`, mcpName: t.name, description: t.description ?? '', inputSchema: JSON.parse(JSON.stringify(t.inputSchema)) as Record<string, never> }));
    return { version: list.version, tools, total: list.tools.length };
  };

  const callTool = async (raw: unknown): Promise<ToolActivityResult> => {
    const parsed = mcpCallToolInputSchema.safeParse(raw);
    if (!parsed.success) throw ApplicationFailure.nonRetryable(`invalid mcp.callTool input: ${describeIssues(parsed.error)}`, 'invalid_input');
    const called = activityInfo();
    const input = resolveToolActivityInput(parsed.data, called);
    const { server, tool } = input.mcp;
    const args = input.request.args;
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      throw ApplicationFailure.nonRetryable(`arguments of MCP tool ${tool} must be a JSON object`, 'invalid_arguments');
    }
    const signal = cancellationSignal();
    let progress: unknown;
    const keepAlive = setInterval(() => heartbeat(progress), toolKeepAliveMs);
    const info = activityInfo();
    let result;
    try {
      result = await pool.callTool(server, tool, args, {
        signal,
        meta: { [idempotencyMetaKey]: input.idempotencyKey },
        // The activity's own timeout governs; the request limit only has to outlast it.
        timeoutMs: (info.startToCloseTimeoutMs ?? 60_000) + 1_000,
        onProgress: (p) => {
          progress = p;
          heartbeat(p);
        },
      });
    } catch (err) {
      if (signal.aborted) throw new CancelledFailure(`MCP call ${server}/${tool} was cancelled`);
      throw serverFailure(server, err, `the call of ${tool}`);
    } finally {
      clearInterval(keepAlive);
    }
    const listVersion = await pool
      .listTools(server)
      .then((l) => l.version)
      .catch(() => undefined);
    if (result.isError) {
      throw ApplicationFailure.create({
        message: `MCP tool ${tool} (server ${server}) returned an error: ${errorResultText(result)}`,
        type: 'mcp_tool_error',
        nonRetryable: true,
      });
    }
    const json = callResultToJson(result);
    const resultBytes = jsonByteLength(json);
    const common = { resultBytes, attempt: info.attempt, ...(listVersion ? { listVersion } : {}) };
    if (resultBytes > input.resultByteBudget) {
      return { ...common, resultOmitted: true, resultOmittedReason: 'workflow_budget', resultPreview: JSON.stringify(json).slice(0, resultPreviewChars) };
    }
    return { ...common, result: json };
  };

  return { [mcpListToolsActivityName]: listTools, [mcpCallToolActivityName]: callTool };
}
