import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import {
  defaultToolResultByteBudget,
  toolCallSummary,
  toolIdempotencyKey,
  turnActivityIdPrefix,
  toolFailureDetailsSchema,
  type DependencyOutput,
  type RetryHint,
  type ToolActivityInput,
  type ToolActivityResult,
  type ToolOutput,
  type ToolRequest,
} from '../../contracts/tools';
import { describeIssues, jsonByteLength, type JsonValue } from '../../contracts/json';
import type { ToolDefinition } from '../../contracts/tool-definition';
import { parseToolActivityResult } from '../../contracts/fast-schemas';
import { workflowNowMs } from '../kernel/clock';
import { runContext } from '../kernel/run-context';
import { errorOutput, okOutput } from '../kernel/outputs';
import type { PreparedCall } from './call-rules';
import { callDuration } from './call-duration';
import { callDurationsCountWork, isPatched } from '../versioning/patches';
import { toolActivityType } from '../../contracts/tool-activity-type';
import { mcpCallToolActivityName } from '../../contracts/mcp';

/** Run-level facts every tool activity receives. */
export interface DispatchContext {
  readonly workflowId: string;
  readonly runId: string;
  /** The run's log epoch: new after a rewind, so re-run calls get new idempotency keys. */
  readonly epoch?: string;
  readonly agent: string;
  readonly sessionId?: string;
  readonly resultByteBudget: number;
  readonly sessionState: Record<string, JsonValue>;
  /** The session keys the tool declared (only these are in `sessionState`). */
  readonly sessionKeys?: readonly string[];
  /** Outputs of the calls this call depends on (dependency-aware plans). */
  readonly dependencies?: readonly DependencyOutput[];
  /** MCP calls: receives the server's tool-list version the call reported. */
  readonly onListVersion?: (version: string) => void;
  /** Receives when a call's tool finished, as its worker reported it (see ToolActivityResult.endedAtMs). */
  readonly onCallEnded?: (endedAtMs: number) => void;
  /** Send a compact activity input (local tools always get one; MCP calls never). */
  readonly compactInput?: boolean;
}

/** Maps a failed tool activity to the ToolOutput the planner sees. */
export function failureToOutput(request: ToolRequest, err: unknown, durationMs: number, cancelHint?: RetryHint, cancelMessage?: string): ToolOutput {
  if (isCancellation(err)) {
    return errorOutput(request, { type: 'cancelled', message: cancelMessage ?? 'the call was cancelled before it finished' }, cancelHint, durationMs);
  }
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof TimeoutFailure) {
    return errorOutput(
      request,
      { type: 'timeout', message: `${request.name} timed out (${cause.timeoutType})` },
      { reason: 'timeout', tool: request.name, message: 'the tool did not finish in time; narrow the request or try later' },
      durationMs,
    );
  }
  if (cause instanceof ApplicationFailure) {
    const details = toolFailureDetailsSchema().safeParse(cause.details?.[0] ?? {});
    const hint = details.success ? details.data.retryHint : undefined;
    const type = cause.type === 'invalid_result' ? 'invalid_result' : 'tool_failed';
    return errorOutput(
      request,
      { type, message: cause.message, ...(cause.type ? { cause: cause.type } : {}) },
      hint ?? (type === 'invalid_result' ? { reason: 'malformed_response', tool: request.name } : undefined),
      durationMs,
    );
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  return errorOutput(request, { type: 'tool_failed', message }, undefined, durationMs);
}

type ToolActivity = (input: ToolActivityInput & { mcp?: { server: string; toolset: string; tool: string } }) => Promise<ToolActivityResult>;

/**
 * The key a tool deduplicates its side effects by: the same for every attempt of a call and
 * across worker crashes, different after a rewind (the call id repeats, the epoch does not), so
 * a corrected call is never deduplicated into the effect of the call it replaces.
 */
export function idempotencyKey(ctx: Pick<DispatchContext, 'workflowId' | 'epoch'>, request: Pick<ToolRequest, 'toolCallId'>): string {
  return toolIdempotencyKey(ctx.workflowId, ctx.epoch, request.toolCallId);
}

/** A request without what its activity id and type say (call id, turn, name). */
function unnamedRequest(request: ToolRequest): Omit<ToolRequest, 'toolCallId' | 'name' | 'turn'> {
  return {
    args: request.args,
    ...(request.parentToolCallId !== undefined ? { parentToolCallId: request.parentToolCallId } : {}),
    ...(request.dependsOn !== undefined ? { dependsOn: request.dependsOn } : {}),
    ...(request.outputPath !== undefined ? { outputPath: request.outputPath } : {}),
  };
}

/**
 * The input of a call's tool activity: full (every activity version accepts it), or compact
 * when the activity derives the rest from its own info (contracts `resolveToolActivityInput`).
 */
function toolActivityInput(ctx: DispatchContext, request: ToolRequest, tool: ToolDefinition): Parameters<ToolActivity>[0] {
  const sessionKeys = ctx.sessionKeys ? { sessionKeys: [...ctx.sessionKeys] } : {};
  const dependencies = ctx.dependencies ? { dependencies: [...ctx.dependencies] } : {};
  if (tool.mcp || (!ctx.compactInput && !tool.local)) {
    return {
      runId: ctx.runId,
      agent: ctx.agent,
      ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
      request,
      idempotencyKey: idempotencyKey(ctx, request),
      resultByteBudget: ctx.resultByteBudget,
      sessionState: ctx.sessionState,
      ...sessionKeys,
      ...dependencies,
      ...(tool.mcp ? { mcp: { ...tool.mcp } } : {}),
    };
  }
  // The activity id (`turn-<N>/<call id>`) and type (`<agent>/<tool>`) name the call; local
  // activities have no such id, so theirs carry the whole request.
  return {
    ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
    request: tool.local ? request : unnamedRequest(request),
    // The epoch of a run that has not continued as new (or been rewound since) is its run id.
    ...(ctx.epoch === ctx.runId ? {} : { epoch: ctx.epoch ?? '' }),
    ...(ctx.resultByteBudget !== defaultToolResultByteBudget ? { resultByteBudget: ctx.resultByteBudget } : {}),
    ...(Object.keys(ctx.sessionState).length ? { sessionState: ctx.sessionState } : {}),
    ...sessionKeys,
    ...dependencies,
  };
}

/** How a dispatched call ends: what its output says when it was cancelled, and who sees the output first. */
export interface CallEnding {
  /** Why the run cancelled the call, once it did (the time budget). */
  readonly cancelHint?: () => RetryHint | undefined;
  /** What a cancelled call's output says instead of the default (a dependency-aware plan's losing alternative). */
  readonly cancelMessage?: () => string | undefined;
  /** Sees the output in the step that ends the call; an error it throws rejects the call's promise. */
  readonly settle?: (output: ToolOutput) => ToolOutput;
  /**
   * Set for a call that reports its end from its last step (a joined turn's call, see
   * turn-driver.ts): an error in that step comes here, and the call's promise never rejects.
   */
  readonly fail?: (err: unknown) => void;
}

/**
 * Runs one validated call as an activity whose type is the tool name, and always returns a
 * ToolOutput: failures, timeouts and cancellation become outputs, never exceptions.
 *
 * Written as a `then` on the activity's promise rather than an async function that awaits it:
 * the output settles in the same microtask as it would after an `await` (so commands keep
 * their order), with one promise less per call, and each promise in workflow code costs the
 * SDK's promise hook a stack capture. `ending.settle` sees the output in that same step (the
 * caller's bookkeeping, without a step of its own); an error it throws rejects the promise.
 *
 * With `ending.fail` (a call that reports its end), `settle` reports the output and nothing reacts
 * to the promise: an error in the step goes to `ending.fail` and the promise does not reject, and
 * an error before the activity is scheduled is thrown.
 */
export function executeCall(
  ctx: DispatchContext,
  prepared: Extract<PreparedCall, { type: 'dispatch' }>,
  ending: CallEnding = {},
): Promise<ToolOutput> {
  const { request, tool } = prepared;
  const { cancelHint, cancelMessage, settle = (output: ToolOutput): ToolOutput => output, fail } = ending;
  let activity: ToolActivity;
  try {
    activity = toolActivityProxy(ctx, request, tool);
  } catch (err) {
    if (fail) throw err;
    return Promise.reject(err);
  }
  const started = workflowNowMs();
  const failedOutput = (err: unknown): ToolOutput => settle(failureToOutput(request, err, workflowNowMs() - started, cancelHint?.(), cancelMessage?.()));
  const failed = !fail
    ? failedOutput
    : (err: unknown): ToolOutput => {
        try {
          return failedOutput(err);
        } catch (failure) {
          fail(failure);
          // The promise's value is never read (see above).
          return undefined as unknown as ToolOutput;
        }
      };
  let scheduled: Promise<ToolActivityResult>;
  try {
    scheduled = activity(toolActivityInput(ctx, request, tool));
  } catch (err) {
    try {
      return Promise.resolve(failed(err));
    } catch (failure) {
      return Promise.reject(failure);
    }
  }
  // A local activity in flight keeps the workflow task open: the run announces its new events
  // when the task ends (see event-announcements.ts).
  const local = tool.local ? runContext().events : undefined;
  if (local) local.localCallsInFlight += 1;
  return scheduled.then((raw) => {
    if (local) local.localCallsInFlight -= 1;
    let output: ToolOutput;
    try {
      output = completedOutput(ctx, request, raw, started);
    } catch (err) {
      return failed(err);
    }
    return settle(output);
  }, (err: unknown) => {
    if (local) local.localCallsInFlight -= 1;
    return failed(err);
  });
}

/** The activity function of a call: local or regular, with the tool's timeouts, retries and id. */
function toolActivityProxy(ctx: DispatchContext, request: ToolRequest, tool: ToolDefinition): ToolActivity {
  const retry = {
    maximumAttempts: tool.retry.maximumAttempts ?? 3,
    initialInterval: tool.retry.initialIntervalMs ?? 1000,
    backoffCoefficient: tool.retry.backoffCoefficient ?? 2,
    nonRetryableErrorTypes: [...(tool.retry.nonRetryableErrorTypes ?? []), 'invalid_result'],
  };
  const activities = tool.local
    ? proxyLocalActivities<Record<string, ToolActivity>>({
        startToCloseTimeout: tool.timeoutMs,
        cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
        // A local activity has no id of ours: the summary is what names its call in the UI.
        summary: callSummary(request, tool),
        retry,
      })
    : proxyActivities<Record<string, ToolActivity>>({
        startToCloseTimeout: tool.timeoutMs,
        // "cancelled" means the tool stopped: the call is answered once the tool acknowledged.
        cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
        ...(tool.heartbeatTimeoutMs ? { heartbeatTimeout: tool.heartbeatTimeoutMs } : {}),
        activityId: `${turnActivityIdPrefix(request.turn)}${request.toolCallId}`,
        // The id (`turn-<N>/<call id>`) and type (`<agent>/<tool>`) already name the call; only
        // an MCP call, whose type all of one server's tools share, gets a summary too.
        ...(tool.mcp ? { summary: callSummary(request, tool) } : {}),
        retry,
      });
  // MCP tools share one activity type: the worker's pool knows each server, not each tool.
  const activityType = tool.mcp ? mcpCallToolActivityName : toolActivityType(ctx.agent, tool.name);
  const activity = activities[activityType];
  if (!activity) throw new Error(`no activity proxy for ${activityType}`);
  return activity;
}

/**
 * The one-line summary the Temporal UI shows for a call's activity. Every other remote tool
 * activity goes without one: it is a payload more per call to encode, pass through the codec
 * and store, and its words are those of the activity's id and type.
 */
function callSummary(request: ToolRequest, tool: ToolDefinition): string {
  return toolCallSummary(request.turn, request.name, tool.mcp);
}

/** The output of a call whose activity returned: its envelope checked, or `invalid_result`. */
function completedOutput(ctx: DispatchContext, request: ToolRequest, raw: unknown, dispatchedMs: number): ToolOutput {
  const parsed = parseToolActivityResult(raw);
  const recordedMs = workflowNowMs();
  if (!parsed.success) {
    return errorOutput(
      request,
      { type: 'invalid_result', message: `tool activity returned an invalid envelope: ${describeIssues(parsed.error)}` },
      { reason: 'malformed_response', tool: request.name },
      recordedMs - dispatchedMs,
    );
  }
  const r = parsed.data;
  if (r.listVersion !== undefined) ctx.onListVersion?.(r.listVersion);
  if (r.endedAtMs !== undefined) ctx.onCallEnded?.(r.endedAtMs);
  // A wait after the tool's end (a rewind, no workflow worker) is not its time (since call-durations-count-work).
  const { measuredMs, workMs } = callDuration({ dispatchedMs, recordedMs, endedAtMs: r.endedAtMs });
  const durationMs = workMs !== measuredMs && isPatched(callDurationsCountWork) ? workMs : measuredMs;
  return okOutput(request, {
    ...(r.result !== undefined ? { result: r.result } : {}),
    resultBytes: r.resultBytes ?? jsonByteLength(r.result ?? null),
    ...(r.resultOmitted ? { resultOmitted: true, resultOmittedReason: r.resultOmittedReason, resultPreview: r.resultPreview } : {}),
    telemetry: { durationMs, attempts: r.attempt ?? 1 },
    ...(r.sessionStateChanges ? { sessionStateChanges: r.sessionStateChanges } : {}),
  });
}
