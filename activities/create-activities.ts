import { activityInfo, ApplicationFailure, CancelledFailure, cancellationSignal, heartbeat } from '@temporalio/activity';
import {
  describeIssues,
  jsonByteLength,
  reservedActivityNames,
  sessionStateMaxBytes,
  resolveToolActivityInput,
  toolActivityInputSchema,
  toolActivityType,
  type JsonValue,
  type ToolActivityResult,
  type ToolDefinition,
} from '../contracts';
import { ToolFailure, type ToolContext, type ToolImplementation } from './tool-implementation';

/** Characters of a result kept as a preview when the result itself is omitted. */
export const resultPreviewChars = 512;

/**
 * How often a running tool heartbeats on its own (repeating the tool's last details), so a
 * cancellation reaches every tool, also one that never heartbeats itself. The worker's
 * heartbeat throttle decides how often the server hears it (see DurableAgentsPlugin).
 */
export const toolKeepAliveMs = 500;

function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** The part of an agent definition the worker needs to register its tools. */
export interface AgentTools {
  readonly name: string;
  readonly tools: readonly ToolDefinition[];
}

/** Dependencies of the activity set. */
export interface ActivityDependencies {
  /** Agents served by this worker: each of their tools is registered as `<agent>/<tool>`. */
  readonly agents: readonly AgentTools[];
  /** Implementations of the agents' tools (matched to definitions by identity, else by unique name). */
  readonly tools: readonly ToolImplementation[];
  /** Runtime activities beside the tools (e.g. `callModel`), keyed by activity type. */
  readonly runtime?: Readonly<Record<string, (input: unknown) => Promise<unknown>>>;
}

type ToolActivity = (input: unknown) => Promise<ToolActivityResult>;

function toApplicationFailure(err: unknown): unknown {
  if (err instanceof ToolFailure) {
    return ApplicationFailure.create({
      message: err.message,
      type: err.type,
      nonRetryable: !err.retryable,
      details: [{ retryHint: err.retryHint }],
    });
  }
  return err;
}

function toolActivity(tool: ToolImplementation): ToolActivity {
  const { definition } = tool;
  return async (rawInput: unknown): Promise<ToolActivityResult> => {
    const parsed = toolActivityInputSchema.safeParse(rawInput);
    if (!parsed.success) {
      throw ApplicationFailure.nonRetryable(`invalid tool activity input: ${describeIssues(parsed.error)}`, 'invalid_input');
    }
    const info = activityInfo();
    const input = resolveToolActivityInput(parsed.data, info);
    const { request, sessionState } = input;
    const args = definition.input.safeParse(request.args);
    if (!args.success) {
      throw ApplicationFailure.nonRetryable(`invalid arguments for ${definition.name}: ${describeIssues(args.error)}`, 'invalid_arguments');
    }
    const changes: Record<string, JsonValue | null> = {};
    const ctx: ToolContext = {
      runId: input.runId,
      agent: input.agent,
      toolCallId: request.toolCallId,
      turn: request.turn,
      idempotencyKey: input.idempotencyKey,
      attempt: info.attempt,
      session: {
        get: (key) => {
          if (key in changes) return changes[key] ?? undefined;
          if (input.sessionKeys && !input.sessionKeys.includes(key)) {
            throw new ToolFailure(`${definition.name} read session key ${JSON.stringify(key)} but declares only ${JSON.stringify(input.sessionKeys)} in sessionKeys`, {
              type: 'undeclared_session_key',
              retryable: false,
            });
          }
          return sessionState[key];
        },
        set: (key, value) => {
          changes[key] = value;
        },
      },
      signal: cancellationSignal(),
      dependencies: input.dependencies ?? [],
      heartbeat: (details) => {
        lastDetails = details;
        if (!info.isLocal) heartbeat(details);
      },
    };
    let lastDetails: JsonValue | undefined;
    // Local activities (tools defined `local`) cannot heartbeat; their cancellation comes with
    // the workflow task.
    const keepAlive = info.isLocal ? undefined : setInterval(() => heartbeat(lastDetails), toolKeepAliveMs);
    let result: JsonValue;
    try {
      result = (await tool.execute(args.data, ctx)) ?? null;
    } catch (err) {
      // A tool that stops because it was cancelled ends as cancelled, whatever it threw: the
      // run then knows it stopped (the workflow waits for this before answering the call).
      if (cancellationSignal().aborted && !(err instanceof CancelledFailure) && !isAbortError(err)) {
        throw new CancelledFailure(`${definition.name} stopped after cancellation: ${err instanceof Error ? err.message : String(err)}`);
      }
      throw toApplicationFailure(err);
    } finally {
      clearInterval(keepAlive);
    }
    if (definition.output) {
      const checked = definition.output.safeParse(result);
      if (!checked.success) {
        throw ApplicationFailure.nonRetryable(
          `${definition.name} returned a result that does not match its output schema: ${describeIssues(checked.error)}`,
          'invalid_result',
        );
      }
    }
    if (Object.keys(changes).length) {
      const next: Record<string, JsonValue> = { ...sessionState };
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) delete next[key];
        else next[key] = value;
      }
      const bytes = jsonByteLength(next);
      if (bytes > sessionStateMaxBytes) {
        throw ApplicationFailure.nonRetryable(
          `${definition.name} would grow the session state to ${bytes} bytes, over its ${sessionStateMaxBytes}-byte limit; keep large data outside the run and store a reference`,
          'session_state_too_large',
        );
      }
    }
    const endedAtMs = Date.now();
    const resultBytes = jsonByteLength(result);
    // A compact input comes from a workflow that measures results itself and counts attempts from 1.
    const compact = parsed.data.runId === undefined;
    const { attempt } = info;
    const common = {
      ...(compact && attempt === 1 ? {} : { attempt }),
      endedAtMs,
      ...(Object.keys(changes).length ? { sessionStateChanges: changes } : {}),
    };
    if (resultBytes > input.resultByteBudget) {
      return {
        resultBytes,
        ...common,
        resultOmitted: true,
        resultOmittedReason: 'workflow_budget',
        resultPreview: JSON.stringify(result).slice(0, resultPreviewChars),
      };
    }
    return compact ? { ...common, result } : { resultBytes, ...common, result };
  };
}

/**
 * The implementation of one agent tool: the one built from the same definition, else the only
 * one of that name whose definition no other served agent uses (e.g. a second copy of the
 * definition module). Never another agent's implementation of a same-named tool.
 */
function implementationOf(agent: AgentTools, definition: ToolDefinition, tools: readonly ToolImplementation[], claimed: ReadonlySet<ToolDefinition>): ToolImplementation {
  const same = tools.find((t) => t.definition === definition);
  if (same) return same;
  const named = tools.filter((t) => t.definition.name === definition.name && !claimed.has(t.definition));
  if (named.length === 1 && named[0]) return named[0];
  const others = tools.filter((t) => t.definition.name === definition.name).length;
  const why = others ? `the ${others} given implementation(s) named ${definition.name} belong to other agents' definitions` : 'no implementation was given';
  throw new Error(`agent ${agent.name} uses tool ${definition.name} but ${why}; pass implementTool(<this agent's ${definition.name} definition>, fn)`);
}

/**
 * Builds the activity functions of a worker: one per tool of each agent, typed
 * `<agent>/<tool>` (see `toolActivityType`), so two agents may each have a tool of the same
 * name. (Runs of 0.1.0 scheduled the bare tool name; they are outside the support window and
 * finish on 0.13.x workers, which register it.)
 *
 * @throws Error when an agent's tool has no implementation, or a tool takes a reserved name.
 */
export function createActivities(deps: ActivityDependencies): Record<string, (input: unknown) => Promise<unknown>> {
  const activities: Record<string, (input: unknown) => Promise<unknown>> = { ...deps.runtime };
  const toolNames = new Set([...deps.agents.flatMap((a) => a.tools.map((t) => t.name)), ...deps.tools.map((t) => t.definition.name)]);
  for (const name of toolNames) {
    if (reservedActivityNames.includes(name) || deps.runtime?.[name] !== undefined) throw new Error(`tool name ${name} is reserved`);
  }
  const claimed = new Set(deps.agents.flatMap((a) => a.tools));
  const agentNames = new Set(deps.agents.map((a) => a.name));
  for (const agent of deps.agents) {
    for (const t of agent.tools) {
      if (t.subAgent && !agentNames.has(t.subAgent.agent)) throw new Error(`agent ${agent.name}: agent tool ${t.name} runs agent ${t.subAgent.agent}, which this worker does not serve`);
    }
  }
  for (const agent of deps.agents) {
    for (const definition of agent.tools) {
      // An agent tool runs as a child workflow, not as an activity.
      if (definition.subAgent) continue;
      activities[toolActivityType(agent.name, definition.name)] = toolActivity(implementationOf(agent, definition, deps.tools, claimed));
    }
  }
  return activities;
}
