import { activityInfo, ApplicationFailure, cancellationSignal, heartbeat } from '@temporalio/activity';
import {
  describeIssues,
  jsonByteLength,
  reservedActivityNames,
  toolActivityInputSchema,
  type JsonValue,
  type ToolActivityResult,
} from '../contracts';
import { ToolFailure, type ToolContext, type ToolImplementation } from './tool-implementation';

/** Characters of a result kept as a preview when the result itself is omitted. */
export const resultPreviewChars = 512;

/** Dependencies of the activity set. */
export interface ActivityDependencies {
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
    const input = toolActivityInputSchema.safeParse(rawInput);
    if (!input.success) {
      throw ApplicationFailure.nonRetryable(`invalid tool activity input: ${describeIssues(input.error)}`, 'invalid_input');
    }
    const { request, sessionState } = input.data;
    const args = definition.input.safeParse(request.args);
    if (!args.success) {
      throw ApplicationFailure.nonRetryable(`invalid arguments for ${definition.name}: ${describeIssues(args.error)}`, 'invalid_arguments');
    }
    const changes: Record<string, JsonValue | null> = {};
    const ctx: ToolContext = {
      runId: input.data.runId,
      agent: input.data.agent,
      toolCallId: request.toolCallId,
      turn: request.turn,
      idempotencyKey: input.data.idempotencyKey,
      attempt: activityInfo().attempt,
      session: {
        get: (key) => (key in changes ? (changes[key] ?? undefined) : sessionState[key]),
        set: (key, value) => {
          changes[key] = value;
        },
      },
      signal: cancellationSignal(),
      heartbeat: (details) => heartbeat(details),
    };
    let result: JsonValue;
    try {
      result = (await tool.execute(args.data, ctx)) ?? null;
    } catch (err) {
      throw toApplicationFailure(err);
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
    const resultBytes = jsonByteLength(result);
    const common = {
      resultBytes,
      attempt: activityInfo().attempt,
      ...(Object.keys(changes).length ? { sessionStateChanges: changes } : {}),
    };
    if (resultBytes > input.data.resultByteBudget) {
      return {
        ...common,
        resultOmitted: true,
        resultOmittedReason: 'workflow_budget',
        resultPreview: JSON.stringify(result).slice(0, resultPreviewChars),
      };
    }
    return { ...common, result };
  };
}

/**
 * Builds the activity functions of a worker: one per tool, keyed by tool name (the activity
 * type), so tests can inject fake tools and real deployments real ones.
 *
 * @throws Error when two tools share a name or a tool takes a reserved name.
 */
export function createActivities(deps: ActivityDependencies): Record<string, (input: unknown) => Promise<unknown>> {
  const activities: Record<string, (input: unknown) => Promise<unknown>> = { ...deps.runtime };
  for (const tool of deps.tools) {
    const { name } = tool.definition;
    if (reservedActivityNames.includes(name) || deps.runtime?.[name]) throw new Error(`tool name ${name} is reserved`);
    if (activities[name]) throw new Error(`two implementations registered for tool ${name}`);
    activities[name] = toolActivity(tool);
  }
  return activities;
}
