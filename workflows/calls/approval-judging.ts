import { ActivityFailure, ApplicationFailure, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { approvalDigest } from '../../contracts/approval-digest';
import { judgeApprovalActivityName, type ApprovalJudgeRequest, type ApprovalJudgement } from '../../contracts/approval-judge';
import type { RuleVerdict } from '../../contracts/approval-policy';
import type { ToolRequest } from '../../contracts/tools';

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
