import { isCancellation, proxyActivities, ActivityFailure, ApplicationFailure, TimeoutFailure, type ActivityOptions } from '@temporalio/workflow';
import { describeIssues } from '../../contracts/json';
import { mcpListToolsActivityName, mcpListToolsResultSchema, type McpListToolsInput, type McpListToolsResult } from '../../contracts/mcp';
import type { McpToolsetDefinition } from '../../contracts/mcp-toolset';
import { waitErrorText, type ProviderWaits } from '../kernel/provider-waits';
import { providerWaitsOf } from '../state/provider-waits-of';
import type { RunState } from '../state/run-state';

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

/** The retry policy of a listing (docs/mcp.md states its attempts). */
export const listRetry = { maximumAttempts: 3, initialInterval: 1000, backoffCoefficient: 2, nonRetryableErrorTypes: ['mcp_config', 'invalid_input'] };

/** The retry policy of a listing that waits for its server: no attempt limit (no maximumAttempts), backoff capped at a minute. */
const waitRetry = { initialInterval: 1000, backoffCoefficient: 2, maximumInterval: 60_000, nonRetryableErrorTypes: ['mcp_config', 'invalid_input'] };

function listToolsActivity(state: RunState, definition: McpToolsetDefinition, more: Omit<ActivityOptions, 'startToCloseTimeout'>): ListTools {
  const listTools = proxyActivities<Record<string, ListTools>>({
    startToCloseTimeout: Math.min(definition.timeoutMs, 60_000),
    summary: `turn ${state.turn}: list tools of ${definition.name} (MCP ${definition.server})`,
    ...more,
  })[mcpListToolsActivityName];
  if (!listTools) throw new Error(`no activity proxy for ${mcpListToolsActivityName}`);
  return listTools;
}

/**
 * Opens the wait of a listing whose first activity failed because the server is unavailable
 * (since `wait-out-provider-outages`): the run logs `mcp_waiting` and its status shows the wait.
 * Runs recorded before 1.0.0 (`refused`) went on without the toolset's tools.
 */
function openWait(waits: ProviderWaits, state: RunState, definition: McpToolsetDefinition, outage: ApplicationFailure): ReturnType<ProviderWaits['open']> {
  const error = waitErrorText(outage.message);
  return waits.open(
    { kind: 'mcp', name: definition.server, turn: state.turn, attempts: listRetry.maximumAttempts, errorType: 'mcp_unavailable', error },
    { type: 'mcp_waiting', turn: state.turn, toolset: definition.name, server: definition.server, attempts: listRetry.maximumAttempts, error },
  );
}

/**
 * The rest of a listing whose wait its run opened ({@link openWait}; `spent`: the time budget was
 * spent at once): the listing is scheduled again without an attempt limit (backoff capped at a
 * minute) and with what is left of the time budget as its schedule-to-close timeout.
 *
 * @throws the last failure when the time budget is spent first, or a failure that is not an outage.
 */
async function waitOutOutage(state: RunState, definition: McpToolsetDefinition, input: McpListToolsInput, waits: ProviderWaits, outage: ApplicationFailure, opening: 'spent' | 'waiting'): Promise<unknown> {
  if (opening === 'spent') throw outage;
  for (;;) {
    const listTools = listToolsActivity(state, definition, { scheduleToCloseTimeout: Math.max(waits.timeBudgetLeftMs(), minWaitMs), retry: waitRetry });
    try {
      const result = await listTools(input);
      waits.ended({ type: 'note', turn: state.turn, note: { text: `MCP server ${definition.server} answered again`, labels: { kind: 'mcp_available', toolset: definition.name } } });
      return result;
    } catch (err) {
      // A timeout with budget left means the budget was raised meanwhile. An outage that comes back
      // means the server would retry past the budget: give up rather than schedule again at once.
      if (isOutOfTime(err) && waits.timeBudgetLeftMs() > 0) continue;
      waits.ended();
      throw err;
    }
  }
}

/**
 * Fetches the lists of the toolsets that need it (`mcp.listTools`, one activity each) and takes
 * them as the run's snapshots, logging `tools_updated` when a list changed. A fetch that fails
 * leaves the previous snapshot in place (or none: the toolset's tools are unknown until a later
 * turn fetches them) and says so in a note; it never fails the run. An unavailable server is
 * waited for while the time budget lasts (see {@link waitOutOutage}).
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
      try {
        raw = await listToolsActivity(state, definition, { retry: listRetry })(input);
      } catch (err) {
        if (!isUnavailable(err)) throw err;
        const waits = providerWaitsOf(state);
        const opening = openWait(waits, state, definition, err.cause);
        if (opening === 'refused') throw err;
        raw = await waitOutOutage(state, definition, input, waits, err.cause, opening);
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
