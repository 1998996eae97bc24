import { z } from 'zod';
import { builtOnce } from './lazy';

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
  /**
   * The tool's name, as the model and planners call it: a letter, then letters, digits, `_`, `.`
   * or `-` (at most 64), unique within an agent. It is not the activity type on its own: a call
   * runs as an activity of type `<agent>/<tool>` (`toolActivityType`), so two agents may each
   * have a tool of one name; an MCP tool's calls run as `mcp.callTool`, a sub-agent tool's as a
   * child workflow.
   */
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
  /**
   * The call may start while the model is still streaming its answer, as soon as the call is
   * complete in the stream (LLM agents; the run's policy `earlyDispatch`). Only for tools
   * without side effects: a call the final answer does not contain is cancelled and discarded.
   * Never for tools that need a human's confirmation.
   */
  readonly startEarly?: boolean;
  /** Set for an agent used as a tool ({@link defineAgentTool}): calls run that agent as a child workflow. */
  readonly subAgent?: SubAgentSpec;
  /** Set on tools a run took from an MCP toolset: calls go to that server's tool through `mcp.callTool`. */
  readonly mcp?: { readonly server: string; readonly toolset: string; readonly tool: string };
}

/** What a sub-agent run gets from the call's (validated) arguments. */
export interface SubAgentRun {
  /** The task, as the sub-agent's user message. */
  readonly prompt: string;
  /** Planner options of the sub-agent (e.g. a script). */
  readonly plannerOptions?: unknown;
  /** Session state the sub-agent starts with. */
  readonly sessionState?: Record<string, unknown>;
}

/** How a tool runs another agent. */
export interface SubAgentSpec {
  /** The registered agent that runs each call (it must be in the same workflow bundle). */
  readonly agent: string;
  /** Builds the sub-agent's run from the call's arguments; runs in the workflow, so it must be pure. */
  readonly toRun: (args: unknown) => SubAgentRun;
  /**
   * The most one call may spend; the child also never gets more than the parent has left
   * (tool calls, tokens, model calls, time). Usage is counted in the parent when the child ends.
   */
  readonly allowance?: { readonly maxToolCalls?: number; readonly maxTokens?: number; readonly maxModelCalls?: number; readonly timeBudgetMs?: number; readonly maxCost?: number };
  /** A wall-clock limit of each sub-agent run, waits for people included (Temporal's execution timeout); none unless given. */
  readonly timeoutMs?: number;
}

/** Options of {@link defineAgentTool}. */
export interface AgentToolOptions<I extends z.ZodType> {
  readonly name: string;
  readonly description: string;
  /** Arguments the model (or planner) passes, or a function that builds them (see {@link defineTool}); default `{ task: string }`. */
  readonly input?: I | (() => I);
  readonly agent: string;
  /** Default: the `task` argument as the prompt. */
  readonly toRun?: (args: z.output<I>) => SubAgentRun;
  readonly allowance?: SubAgentSpec['allowance'];
  readonly requiresConfirmation?: ToolDefinition['requiresConfirmation'];
  /**
   * A wall-clock limit of the whole sub-agent run, time it waits for people included (Temporal's
   * execution timeout). Default: none; its time budget (at most what the parent has left) bounds
   * its work, and a child that waits for a person waits as long as it takes.
   */
  readonly timeoutMs?: number;
}

const defaultAgentToolInput = builtOnce(() => z.object({ task: z.string().min(1) }));

/**
 * Declares an agent as a tool of another agent. Each call runs `agent` as a child workflow with
 * an id derived from the parent run and the call id; its final answer is the call's result.
 * Kill and cancellation reach the child; pause and resume are passed on; the child's approvals
 * and questions are listed and answered through the parent's tree (AgentClient.pendingInputsTree).
 *
 * @example
 * const research = defineAgentTool({ name: 'research', description: 'Research a question', agent: 'researcher' });
 */
export function defineAgentTool<I extends z.ZodType = ReturnType<typeof defaultAgentToolInput>>(options: AgentToolOptions<I>): ToolDefinition<I> {
  const input = (options.input ?? defaultAgentToolInput) as I | (() => I);
  const toRun = options.toRun ?? ((args: z.output<I>) => ({ prompt: (args as { task: string }).task }));
  const definition = defineTool<I>({
    name: options.name,
    description: options.description,
    input,
    timeoutMs: options.timeoutMs ?? 3_600_000,
    retry: { maximumAttempts: 1 },
    ...(options.requiresConfirmation !== undefined ? { requiresConfirmation: options.requiresConfirmation } : {}),
  });
  if (!options.agent) throw new Error(`defineAgentTool: tool ${options.name} needs the name of the agent it runs`);
  // Assigned, not spread: a spread would read (and so build) a schema given as a builder.
  return Object.assign(definition, {
    subAgent: {
      agent: options.agent,
      toRun: toRun as SubAgentSpec['toRun'],
      ...(options.allowance ? { allowance: options.allowance } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    },
  });
}

/** Options accepted by {@link defineTool}. */
export type ToolDefinitionOptions<I extends z.ZodType, O extends z.ZodType> = Omit<
  ToolDefinition<I, O>,
  'timeoutMs' | 'retry' | 'requiresConfirmation' | 'input' | 'output'
> &
  Partial<Pick<ToolDefinition<I, O>, 'timeoutMs' | 'retry' | 'requiresConfirmation'>> & {
    /** Schema of the arguments, or a function that builds it on first use (see {@link defineTool}). */
    readonly input: I | (() => I);
    /** Schema of the result, or a function that builds it on first use. */
    readonly output?: O | (() => O);
  };

/**
 * Sets `input` / `output` of a new tool definition: a schema as it is, a builder as a getter
 * over {@link builtOnce}, so it is called on the first read only.
 */
function setSchema(definition: Record<string, unknown>, tool: string, field: 'input' | 'output', given: unknown): void {
  if (typeof given !== 'function') {
    if (given !== undefined) definition[field] = given;
    return;
  }
  const schema = builtOnce(() => {
    const built: unknown = (given as () => unknown)();
    if (typeof (built as { safeParse?: unknown } | null)?.safeParse !== 'function') {
      throw new Error(`defineTool: the ${field} builder of tool ${tool} returned ${built === null ? 'null' : typeof built}, not a zod schema`);
    }
    return built;
  });
  Object.defineProperty(definition, field, { enumerable: true, configurable: true, get: schema });
}

const toolNamePattern = /^[a-zA-Z][a-zA-Z0-9_.-]{0,63}$/;

/** Activity types used by the runtime itself; tools may not take these names. */
export const reservedActivityNames: readonly string[] = ['callModel', 'mcp.listTools', 'mcp.callTool', 'session.deliverMessage', 'approvals.notify'];

/**
 * Declares a tool. Safe to import from workflow code.
 *
 * `input` and `output` take a zod schema, or a function that builds one. Workflow code is
 * evaluated again for every new execution (a new run, a replay after a cache miss, a continue-as-
 * new), so a schema built at the top level of an agent module is built again each time, whether
 * the run calls the tool or not. A builder is called when the schema is first read (the first
 * call of the tool in a run, or the worker deriving the model's JSON Schema), once; the
 * definition's `input` / `output` are the built schemas, as for a schema given directly.
 *
 * @throws Error when the name is not a valid identifier or is reserved.
 * @example
 * import { z } from 'zod';
 * const addToWatchlist = defineTool({
 *   name: 'add_to_watchlist',
 *   description: 'Add a stock symbol to the watchlist',
 *   input: () => z.object({ symbol: z.string() }),
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
  const { input, output, ...rest } = options;
  if (input === undefined) throw new Error(`defineTool: tool ${options.name} needs an input schema`);
  const definition = { timeoutMs: 60_000, retry: {}, requiresConfirmation: false, ...rest };
  setSchema(definition, options.name, 'input', input);
  setSchema(definition, options.name, 'output', output);
  return definition as ToolDefinition<I, O>;
}
