import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { approvalDigest } from '../../contracts/approval-digest';
import { judgeApprovalActivityName, type ApprovalJudgeRequest, type ApprovalJudgement } from '../../contracts/approval-judge';
import type { RuleVerdict } from '../../contracts/approval-policy';
import type { ToolRequest } from '../../contracts/tools';
import type { RunEventDraft } from '../../contracts/events';
import type { ModelUsageReport } from '../agents/planner';
import { addModelUsage, modelUsageEvent, type Usage } from '../state/budget';

type JudgeActivity = (request: ApprovalJudgeRequest) => Promise<ApprovalJudgement>;

/**
 * Asks the judge of a `judge` rule about a call: one attempt of the `approvals.judge` activity
 * within the rule's `timeoutMs`. Its answer, or why there is none (it failed, timed out, or no
 * worker has that judge), is the machine's `judged` event; the run's own cancellation (a kill)
 * is rethrown.
 */
export async function judgeCall(request: ToolRequest, verdict: RuleVerdict, where: { readonly agent: string; readonly sessionId?: string }): Promise<ApprovalJudgement | { readonly failed: string }> {
  const judge = verdict.judge!;
  const activity = proxyActivities<Record<string, JudgeActivity>>({ startToCloseTimeout: judge.timeoutMs, retry: { maximumAttempts: 1 } })[judgeApprovalActivityName] as JudgeActivity;
  try {
    return await activity({
      evaluator: judge.evaluator,
      workflowId: workflowInfo().workflowId,
      agent: where.agent,
      ...(where.sessionId !== undefined ? { sessionId: where.sessionId } : {}),
      toolCallId: request.toolCallId,
      name: request.name,
      args: request.args,
      digest: approvalDigest(request.name, request.args),
      rules: { version: verdict.version, rule: verdict.rule },
    });
  } catch (err) {
    if (isCancellation(err)) throw err;
    const cause = err instanceof ActivityFailure ? err.cause : err;
    const message = cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
    return { failed: message };
  }
}

/**
 * The model call a judge reports in its judgement, as a report of the run's model usage: one call,
 * its tokens (unknown when the provider gave none) and its cost (unknown without a price). None
 * for a judge that asked no model, or that failed. Pure.
 */
export function judgeUsageReport(judgement: ApprovalJudgement | { readonly failed: string }): ModelUsageReport | undefined {
  if ('failed' in judgement || !judgement.usage) return undefined;
  const { usage, cost } = judgement;
  const tokens = usage.totalTokens ?? (usage.promptTokens !== undefined && usage.completionTokens !== undefined ? usage.promptTokens + usage.completionTokens : undefined);
  return {
    modelCalls: 1,
    tokens: tokens ?? 0,
    ...(tokens === undefined ? { tokensUnknown: true } : {}),
    ...(cost ? { cost } : {}),
    ...(usage.model !== undefined ? { model: usage.model } : {}),
  };
}

/**
 * Counts a judge's model call in the run's budgets (tokens, model calls, money), as the planner's
 * are, and logs it as a `model_usage` event naming the judge: a judge's call is the run's work.
 */
export function countJudgeUsage(run: { usage: Usage; emit(draft: RunEventDraft): void }, turn: number, evaluator: string, judgement: ApprovalJudgement | { readonly failed: string }): void {
  const report = judgeUsageReport(judgement);
  if (!report) return;
  run.usage = addModelUsage(run.usage, report);
  run.emit({ ...modelUsageEvent(turn, report), judge: evaluator });
}
