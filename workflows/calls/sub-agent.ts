import { childConfirmation } from './child-confirmation';
import { childRunLabels } from './child-run-labels';
import { childTenant } from './child-tenant';
import { CancellationScope, ChildWorkflowCancellationType, ChildWorkflowFailure, ParentClosePolicy, isCancellation, startChild } from '@temporalio/workflow';
import { agentRunWorkflowType } from '../../contracts/definitions';
import { jsonByteLength } from '../../contracts/json';
import type { InterventionPoint } from '../../contracts/control';
import type { BudgetLine, ChildRun, RunInput, RunPolicy, RunResult } from '../../contracts/run';
import type { ToolDefinition } from '../../contracts/tool-definition';
import type { ToolOutput, ToolRequest } from '../../contracts/tools';
import { workflowNowMs } from '../kernel/clock';
import { errorOutput, okOutput } from '../kernel/outputs';
import type { Usage } from '../state/budget';

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
  /** The parent's confirmation as it stands, passed down to the child. */
  readonly confirmation: RunInput['confirmation'];
  /** The parent's tenant: its children take it. */
  readonly tenant?: string | undefined;
  /** The parent's breakpoints, passed down to the child. */
  readonly breakpoints: readonly { point: InterventionPoint; tool?: string; once: boolean }[];
  /** Time left in the parent's time budget. */
  remainingTimeMs(): number;
  started(child: ChildRun): void;
  ended(child: ChildRun, usage: ChildUsage): void;
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

/** What a child run used, added to its parent's usage: its cost as the parent counts it (a line of the child's cost report). */
export type ChildUsage = Pick<Usage, 'tokens' | 'modelCalls' | 'toolCalls'> & { readonly cost?: BudgetLine };

/** The child's usage, from its result's cost report. */
function childUsage(cost: RunResult['cost']): ChildUsage {
  return { tokens: cost.tokens.used, modelCalls: cost.modelCalls.used, toolCalls: cost.toolCalls.used, ...(cost.cost ? { cost: cost.cost } : {}) };
}

/** Adds a child's usage to its parent's: its money only in the parent's currency, else as calls of unknown cost. */
export function withChildUsage(usage: Usage, child: ChildUsage): Usage {
  const next: Usage = { ...usage, tokens: usage.tokens + child.tokens, modelCalls: usage.modelCalls + child.modelCalls, toolCalls: usage.toolCalls + child.toolCalls };
  const cost = child.cost;
  if (!cost) return next;
  const unknown = (usage.costUnknownCalls ?? 0) + (cost.unknownCalls ?? 0);
  const sameCurrency = cost.currency === undefined || usage.costCurrency === undefined || cost.currency === usage.costCurrency;
  if (!sameCurrency) return { ...next, costUnknownCalls: unknown + Math.max(0, child.modelCalls - (cost.unknownCalls ?? 0)) };
  return {
    ...next,
    ...(cost.used > 0 || cost.currency ? { cost: (usage.cost ?? 0) + cost.used } : {}),
    ...(cost.currency ?? usage.costCurrency ? { costCurrency: cost.currency ?? usage.costCurrency } : {}),
    ...(unknown ? { costUnknownCalls: unknown } : {}),
  };
}

/** The child's budget: its allowance, never more than the parent has left. */
export function childPolicy(tool: ToolDefinition, host: Pick<SubAgentHost, 'policy' | 'usage' | 'remainingTimeMs'>): Partial<RunPolicy> {
  const allowance = tool.subAgent?.allowance ?? {};
  const { policy, usage } = host;
  const left = (max: number | undefined, used: number): number | undefined => (max === undefined ? undefined : Math.max(1, max - used));
  const maxToolCalls = min(allowance.maxToolCalls, left(policy.maxToolCalls, usage.toolCalls));
  const maxTokens = min(allowance.maxTokens, left(policy.maxTokens, usage.tokens));
  const maxModelCalls = min(allowance.maxModelCalls, left(policy.maxModelCalls, usage.modelCalls));
  // Money is not a count: what is left may be a fraction, and a spent budget leaves nothing.
  const maxCost = min(allowance.maxCost, policy.maxCost === undefined ? undefined : Math.max(Number.MIN_VALUE, policy.maxCost - (usage.cost ?? 0)));
  const timeBudgetMs = min(allowance.timeBudgetMs, Math.max(1, Math.floor(host.remainingTimeMs())));
  return {
    ...(maxToolCalls !== undefined ? { maxToolCalls } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(maxModelCalls !== undefined ? { maxModelCalls } : {}),
    ...(maxCost !== undefined ? { maxCost } : {}),
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
  const tenant = childTenant(host.tenant);
  const input: RunInput = {
    agent: spec.agent,
    messages: [{ role: 'user', content: run.prompt }],
    ...(run.plannerOptions !== undefined ? { plannerOptions: run.plannerOptions as never } : {}),
    ...(run.sessionState ? { sessionState: run.sessionState as never } : {}),
    policy: childPolicy(tool, host),
    // The parent's breakpoints hold the child at the same safe points.
    ...(host.breakpoints.length ? { breakpoints: host.breakpoints.map((b) => ({ ...b })) } : {}),
    // The parent's confirmation decides the child's calls too.
    ...childConfirmation(host.confirmation),
    parent: { workflowId: host.workflowId, toolCallId: request.toolCallId, path: [...host.path, request.toolCallId] },
    ...(tenant ? { tenant: tenant.tenant } : {}),
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
      // A wall-clock limit only when the tool asks for one: the child's time budget bounds its
      // work, and its waits for people are free (an execution timeout would end them).
      ...(spec.timeoutMs !== undefined ? { workflowExecutionTimeout: spec.timeoutMs } : {}),
      ...childRunLabels(spec.agent, { parentWorkflowId: host.workflowId, parentToolCallId: request.toolCallId }, {}, tenant),
    });
    host.started(child);
    let result: RunResult;
    try {
      result = await handle.result();
    } catch (err) {
      host.ended({ ...child, status: isCancellation(err) ? 'terminated' : 'failed' }, { tokens: 0, modelCalls: 0, toolCalls: 0 });
      throw err;
    }
    host.ended({ ...child, status: result.status }, childUsage(result.cost));
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
