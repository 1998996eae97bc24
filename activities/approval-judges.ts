import { ApplicationFailure } from '@temporalio/activity';
import { judgeApprovalActivityName, approvalJudgementSchema, type ApprovalJudge, type ApprovalJudgeRequest, type ApprovalJudgement } from '../contracts/approval-judge';
import { describeIssues } from '../contracts/json';

/**
 * The `approvals.judge` activity over the worker's judges, by name. A judge the worker does not
 * have, one that throws, or an answer that is not a judgement fails the attempt, and the run asks
 * a person instead (the failure names the judge and what was wrong).
 */
export function createApprovalJudges(judges: Readonly<Record<string, ApprovalJudge>>): Record<string, (request: ApprovalJudgeRequest) => Promise<ApprovalJudgement>> {
  const judge = async (request: ApprovalJudgeRequest): Promise<ApprovalJudgement> => {
    const evaluator = judges[request.evaluator];
    if (!evaluator) {
      throw ApplicationFailure.nonRetryable(`no approval judge "${request.evaluator}" on this worker; its judges: ${Object.keys(judges).join(', ') || 'none'}`, 'judge_unknown');
    }
    const answer = await evaluator(request);
    const judgement = approvalJudgementSchema().safeParse(answer);
    if (!judgement.success) throw ApplicationFailure.nonRetryable(`approval judge "${request.evaluator}" answered no judgement: ${describeIssues(judgement.error)}`, 'judge_answer');
    return judgement.data;
  };
  return { [judgeApprovalActivityName]: judge };
}
