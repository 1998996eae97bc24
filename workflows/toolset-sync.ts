import { isCancellation, proxyActivities, ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { describeIssues } from '../contracts/json';
import { mcpListToolsActivityName, mcpListToolsResultSchema, type McpListToolsInput, type McpListToolsResult } from '../contracts/mcp';
import type { McpToolsetDefinition } from '../contracts/mcp-toolset';
import { isPatched, waitOutProviderOutages } from './patches';
import { providerWaitsOf, waitErrorText } from './provider-waits';
import type { RunState } from './run-state';

type ListTools = (input: McpListToolsInput) => Promise<McpListToolsResult>;

function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? (err.cause ?? err) : err;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
}

/** Shortest schedule-to-close timeout a waiting listing gets, however little of the time budget is left. */
const minWaitMs = 1_000;

function isUnavailable(err: unknown): err is ActivityFailure & { cause: ApplicationFailure } {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === 'mcp_unavailable';
}

function isOutOfTime(err: unknown): boolean {
  return err instanceof ActivityFailure && err.cause instanceof TimeoutFailure && err.cause.timeoutType === 'SCHEDULE_TO_CLOSE';
}

/**
 * Lists a toolset's tools, waiting out an outage of its server (since `wait-out-provider-outages`):
 * after 3 failed attempts with `mcp_unavailable` the run logs `mcp_waiting`, its status shows the
 * wait, and the listing is scheduled again without an attempt limit (backoff capped at a minute)
 * and with what is left of the time budget as its schedule-to-close timeout. Runs recorded before
 * gave up after 3 attempts.
 */
async function listWaitingOutOutages(state: RunState, definition: McpToolsetDefinition, input: McpListToolsInput): Promise<unknown> {
  const summary = `turn ${state.turn}: list tools of ${definition.name} (MCP ${definition.server})`;
  const startToCloseTimeout = Math.min(definition.timeoutMs, 60_000);
  const retry = { initialInterval: 1000, backoffCoefficient: 2, maximumInterval: 60_000, nonRetryableErrorTypes: ['mcp_config', 'invalid_input'] };
  const waits = providerWaitsOf(state);
  let waiting = false;
  for (;;) {
    const left = waits.timeBudgetLeftMs();
    const listTools = proxyActivities<Record<string, ListTools>>({
      startToCloseTimeout,
      summary,
      ...(waiting ? { scheduleToCloseTimeout: Math.max(left, minWaitMs), retry } : { retry: { ...retry, maximumAttempts: 3 } }),
    })[mcpListToolsActivityName];
    if (!listTools) throw new Error(`no activity proxy for ${mcpListToolsActivityName}`);
    try {
      const result = await listTools(input);
      if (waiting) waits.ended({ type: 'note', turn: state.turn, note: { text: `MCP server ${definition.server} answered again`, labels: { kind: 'mcp_available', toolset: definition.name } } });
      return result;
    } catch (err) {
      const again = (isUnavailable(err) || (waiting && isOutOfTime(err))) && waits.timeBudgetLeftMs() > 0 && !isCancellation(err);
      if (!again) {
        if (waiting) waits.ended();
        throw err;
      }
      if (!waiting && isUnavailable(err)) {
        const error = waitErrorText(err.cause.message);
        waits.began(
          { kind: 'mcp', name: definition.server, turn: state.turn, attempts: 3, errorType: 'mcp_unavailable', error },
          { type: 'mcp_waiting', turn: state.turn, toolset: definition.name, server: definition.server, attempts: 3, error },
        );
      }
      waiting = true;
    }
  }
}

/**
 * Fetches the lists of the toolsets that need it (`mcp.listTools`, one activity each) and takes
 * them as the run's snapshots, logging `tools_updated` when a list changed. A fetch that fails
 * leaves the previous snapshot in place (or none: the toolset's tools are unknown until a later
 * turn fetches them) and says so in a note; it never fails the run. An unavailable server is
 * waited for while the time budget lasts (see {@link listWaitingOutOutages}).
 *
 * @throws the cancellation when the run is killed meanwhile.
 */
export async function syncToolsets(state: RunState): Promise<void> {
  for (const { definition, reason } of state.toolsets.due()) {
    const input: McpListToolsInput = {
      server: definition.server,
      toolset: definition.name,
      ...(definition.include ? { include: [...definition.include] } : {}),
      ...(definition.exclude ? { exclude: [...definition.exclude] } : {}),
      ...(definition.prefix ? { prefix: definition.prefix } : {}),
    };
    let result: McpListToolsResult;
    try {
      let raw: unknown;
      if (isPatched(waitOutProviderOutages)) {
        raw = await listWaitingOutOutages(state, definition, input);
      } else {
        const listTools = proxyActivities<Record<string, ListTools>>({
          startToCloseTimeout: Math.min(definition.timeoutMs, 60_000),
          retry: { maximumAttempts: 3, initialInterval: 1000, backoffCoefficient: 2, nonRetryableErrorTypes: ['mcp_config', 'invalid_input'] },
          summary: `turn ${state.turn}: list tools of ${definition.name} (MCP ${definition.server})`,
        })[mcpListToolsActivityName];
        if (!listTools) throw new Error(`no activity proxy for ${mcpListToolsActivityName}`);
        raw = await listTools(input);
      }
      const parsed = mcpListToolsResultSchema().safeParse(raw);
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
