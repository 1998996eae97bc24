import { z } from 'zod';

/** Retry policy of a tool's activity, in JSON-friendly units. */
export interface ToolRetryPolicy {
  /** Total attempts including the first; 1 disables retries. Default 3. */
  maximumAttempts?: number;
  /** Delay before the first retry. Default 1000 ms. */
  initialIntervalMs?: number;
  /** Multiplier of the delay between retries. Default 2. */
  backoffCoefficient?: number;
  /** Error `type`s (ApplicationFailure types) that must never be retried. */
  nonRetryableErrorTypes?: string[];
}

/**
 * A tool as the deterministic side knows it: name, model-facing description, argument
 * schema and execution policy. The implementation lives on the worker (see `implementTool`).
 */
export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** Unique tool name; also the Temporal activity type of every call to it. */
  readonly name: string;
  /** What the tool does, written for the model. */
  readonly description: string;
  /** Schema of the arguments; calls that do not match never reach an activity. */
  readonly input: I;
  /** Optional schema of the result, checked on the worker after the tool returns. */
  readonly output?: O;
  /** Limit of one attempt (activity start-to-close). Default 60 s. */
  readonly timeoutMs: number;
  /** Long tools heartbeat; if set, a missed heartbeat fails the attempt and cancellation reaches them. */
  readonly heartbeatTimeoutMs?: number;
  readonly retry: ToolRetryPolicy;
  /**
   * A human must approve each call before it is dispatched. A function decides per call from
   * the (validated) arguments; it runs in the workflow, so it must be deterministic.
   */
  readonly requiresConfirmation: boolean | ((args: unknown) => boolean);
  /**
   * The session-state keys the tool reads. Each call carries only these (session state can be
   * up to 256 KiB, and every call's input is stored in history); reading another key throws.
   * `[]` for a tool that reads none. Default: the whole session state.
   */
  readonly sessionKeys?: readonly string[];
  /**
   * Run the tool as a Temporal local activity: in the worker that runs the workflow task, with
   * no task-queue round trip (a few ms per call instead of tens). For short tools only: no
   * heartbeats (a kill waits for the call to end), and a call is retried by re-running the
   * workflow task if that worker dies. Results are recorded in history as for any tool.
   */
  readonly local?: boolean;
  /** Set on tools a run took from an MCP toolset: calls go to that server's tool through `mcp.callTool`. */
  readonly mcp?: { readonly server: string; readonly toolset: string; readonly tool: string };
}

/** Options accepted by {@link defineTool}. */
export type ToolDefinitionOptions<I extends z.ZodType, O extends z.ZodType> = Omit<
  ToolDefinition<I, O>,
  'timeoutMs' | 'retry' | 'requiresConfirmation'
> &
  Partial<Pick<ToolDefinition<I, O>, 'timeoutMs' | 'retry' | 'requiresConfirmation'>>;

const toolNamePattern = /^[a-zA-Z][a-zA-Z0-9_.-]{0,63}$/;

/** Activity types used by the runtime itself; tools may not take these names. */
export const reservedActivityNames: readonly string[] = ['callModel', 'mcp.listTools', 'mcp.callTool'];

/**
 * Declares a tool. Safe to import from workflow code.
 *
 * @throws Error when the name is not a valid identifier or is reserved.
 * @example
 * const addToWatchlist = defineTool({
 *   name: 'add_to_watchlist',
 *   description: 'Add a stock symbol to the watchlist',
 *   input: z.object({ symbol: z.string() }),
 * });
 */
export function defineTool<I extends z.ZodType, O extends z.ZodType = z.ZodType>(
  options: ToolDefinitionOptions<I, O>,
): ToolDefinition<I, O> {
  if (!toolNamePattern.test(options.name)) {
    throw new Error(`defineTool: invalid tool name ${JSON.stringify(options.name)}; use letters, digits, _ . - (max 64)`);
  }
  if (reservedActivityNames.includes(options.name)) {
    throw new Error(`defineTool: tool name ${JSON.stringify(options.name)} is reserved by the runtime`);
  }
  if (options.local && options.heartbeatTimeoutMs !== undefined) {
    throw new Error(`defineTool: tool ${options.name} is local and cannot heartbeat; drop heartbeatTimeoutMs or local`);
  }
  return {
    timeoutMs: 60_000,
    retry: {},
    requiresConfirmation: false,
    ...options,
  };
}
