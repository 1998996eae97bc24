import { childRunLabels } from '../sessions/child-run-labels';
import { CancellationScope, ChildWorkflowCancellationType, ChildWorkflowFailure, ParentClosePolicy, isCancellation, startChild } from '@temporalio/workflow';
import { agentRunWorkflowType } from '../../contracts/definitions';
import { jsonByteLength } from '../../contracts/json';
import type { InterventionPoint } from '../../contracts/control';
import type { ChildRun, RunInput, RunPolicy, RunResult } from '../../contracts/run';
import type { ToolDefinition } from '../../contracts/tool-definition';
import type { ToolOutput, ToolRequest } from '../../contracts/tools';
import { workflowNowMs } from '../run/clock';
import { errorOutput, okOutput } from './outputs';
import type { Usage } from '../run/budget';

/** What running a sub-agent needs from its parent run. */
export interface SubAgentHost {
  readonly workflowId: string;
  /** The run's log epoch: a rewound parent starts new children for the calls it runs again. */
  readonly epoch: string;
  /** Call path from the root run to this run (empty for a root). */
  readonly path: readonly string[];
  readonly policy: RunPolicy;
  readonly usage: Usage;
  /** Results above this many JSON bytes are omitted from the parent's payloads (the run's toolResultByteBudget). */
  readonly resultByteBudget: number;
  /** The parent's breakpoints, passed down to the child. */
  readonly breakpoints: readonly { point: InterventionPoint; tool?: string; once: boolean }[];
  /** Time left in the parent's time budget. */
  remainingTimeMs(): number;
  started(child: ChildRun): void;
  ended(child: ChildRun, usage: Pick<Usage, 'tokens' | 'modelCalls' | 'toolCalls'>): void;
}

/**
 * The child workflow id of a call: the parent's log epoch (the id of the run's first execution,
 * new after a rewind, so a rewound parent starts new children) and the call id. Not the parent's
 * workflow id: a history does not record it, and replay must derive the same id.
 */
export function childWorkflowId(host: Pick<SubAgentHost, 'epoch'>, toolCallId: string): string {
  return `sub-${host.epoch}/${toolCallId}`;
}

function min(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

/** The child's budget: its allowance, never more than the parent has left. */
export function childPolicy(tool: ToolDefinition, host: Pick<SubAgentHost, 'policy' | 'usage' | 'remainingTimeMs'>): Partial<RunPolicy> {
  const allowance = tool.subAgent?.allowance ?? {};
  const { policy, usage } = host;
  const left = (max: number | undefined, used: number): number | undefined => (max === undefined ? undefined : Math.max(1, max - used));
  const maxToolCalls = min(allowance.maxToolCalls, left(policy.maxToolCalls, usage.toolCalls));
  const maxTokens = min(allowance.maxTokens, left(policy.maxTokens, usage.tokens));
  const maxModelCalls = min(allowance.maxModelCalls, left(policy.maxModelCalls, usage.modelCalls));
  const timeBudgetMs = min(allowance.timeBudgetMs, Math.max(1, Math.floor(host.remainingTimeMs())));
  return {
    ...(maxToolCalls !== undefined ? { maxToolCalls } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(maxModelCalls !== undefined ? { maxModelCalls } : {}),
    ...(timeBudgetMs !== undefined ? { timeBudgetMs } : {}),
  };
}

/**
 * Runs one call of an agent tool as a child `agentRun`, and answers the call with the child's
 * final answer. The child's usage is counted in the parent; a cancelled call (kill, time budget,
 * Temporal cancellation) cancels the child, which ends like a kill and answers its own calls.
 */
export async function executeSubAgent(host: SubAgentHost, request: ToolRequest, tool: ToolDefinition, args: unknown): Promise<ToolOutput> {
  const spec = tool.subAgent;
  if (!spec) throw new Error(`tool ${tool.name} is not an agent tool`);
  const started = workflowNowMs();
  let run;
  try {
    run = spec.toRun(args);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return errorOutput(request, { type: 'invalid_arguments', message: `agent tool ${tool.name} could not build the ${spec.agent} run: ${message}` });
  }
  const workflowId = childWorkflowId(host, request.toolCallId);
  const input: RunInput = {
    agent: spec.agent,
    messages: [{ role: 'user', content: run.prompt }],
    ...(run.plannerOptions !== undefined ? { plannerOptions: run.plannerOptions as never } : {}),
    ...(run.sessionState ? { sessionState: run.sessionState as never } : {}),
    policy: childPolicy(tool, host),
    // The parent's breakpoints hold the child at the same safe points.
    ...(host.breakpoints.length ? { breakpoints: host.breakpoints.map((b) => ({ ...b })) } : {}),
    parent: { workflowId: host.workflowId, toolCallId: request.toolCallId, path: [...host.path, request.toolCallId] },
  };
  const child: ChildRun = { toolCallId: request.toolCallId, workflowId, agent: spec.agent, turn: request.turn, status: 'running' };
  const durationMs = (): number => workflowNowMs() - started;
  try {
    const handle = await startChild<(input: RunInput) => Promise<RunResult>>(agentRunWorkflowType, {
      workflowId,
      args: [input],
      // The child ends (like a kill) when the parent closes or cancels the call.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
      workflowExecutionTimeout: tool.timeoutMs,
      ...childRunLabels(spec.agent, { parentWorkflowId: host.workflowId, parentToolCallId: request.toolCallId }),
    });
    host.started(child);
    let result: RunResult;
    try {
      result = await handle.result();
    } catch (err) {
      host.ended({ ...child, status: isCancellation(err) ? 'terminated' : 'failed' }, { tokens: 0, modelCalls: 0, toolCalls: 0 });
      throw err;
    }
    const usage = { tokens: result.cost.tokens.used, modelCalls: result.cost.modelCalls.used, toolCalls: result.cost.toolCalls.used };
    host.ended({ ...child, status: result.status }, usage);
    if (result.status === 'terminated') {
      // A cancelled call ends its child like a kill; a child killed on its own fails the call.
      if (CancellationScope.current().consideredCancelled) {
        return errorOutput(request, { type: 'cancelled', message: `the call was cancelled; its sub-agent run ${workflowId} ended` }, undefined, durationMs());
      }
      return errorOutput(request, { type: 'tool_failed', message: `sub-agent ${spec.agent} (${workflowId}) was terminated before it answered` }, undefined, durationMs());
    }
    const value = { agent: spec.agent, workflowId, status: result.status, text: result.final?.text ?? '', ...(result.final?.structured !== undefined ? { structured: result.final.structured } : {}) };
    const resultBytes = jsonByteLength(value);
    const telemetry = { durationMs: durationMs(), attempts: 1 };
    // Over the run's result budget, as a tool's result would be: the child's own result keeps it all.
    if (resultBytes > host.resultByteBudget) {
      return okOutput(request, { resultBytes, resultOmitted: true, resultOmittedReason: 'workflow_budget', resultPreview: JSON.stringify(value).slice(0, 2_000), telemetry });
    }
    return okOutput(request, { result: value, resultBytes, telemetry });
  } catch (err) {
    if (isCancellation(err)) return errorOutput(request, { type: 'cancelled', message: `the sub-agent run ${workflowId} was cancelled` }, undefined, durationMs());
    const cause = err instanceof ChildWorkflowFailure ? (err.cause?.message ?? err.message) : err instanceof Error ? err.message : String(err);
    return errorOutput(request, { type: 'tool_failed', message: `sub-agent ${spec.agent} (${workflowId}) failed: ${cause}` }, undefined, durationMs());
  }
}
