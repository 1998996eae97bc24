import { ApplicationFailure } from '@temporalio/activity';
import { judgeApprovalActivityName, approvalJudgementSchema, type ApprovalJudge, type ApprovalJudgeRequest, type ApprovalJudgement } from '../contracts/approval-judge';
import { describeIssues } from '../contracts/json';
import { callCost, priceOf, type PriceTable } from '../contracts/pricing';

/** A judgement with its model call priced by `prices`, when it reports one whose model has a price and no cost of its own. */
export function pricedJudgement(judgement: ApprovalJudgement, prices: PriceTable | undefined): ApprovalJudgement {
  const usage = judgement.usage;
  if (!prices || judgement.cost || usage?.model === undefined || usage.promptTokens === undefined || usage.completionTokens === undefined) return judgement;
  const price = priceOf(prices, usage.model);
  if (!price) return judgement;
  const priced = { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens, ...(usage.cachedPromptTokens !== undefined ? { cachedPromptTokens: usage.cachedPromptTokens } : {}) };
  return { ...judgement, cost: { amount: callCost(priced, price), currency: prices.currency } };
}

/**
 * The `approvals.judge` activity over the worker's judges, by name. A judge the worker does not
 * have, one that throws, or an answer that is not a judgement fails the attempt, and the run asks
 * a person instead (the failure names the judge and what was wrong). A judge's model call is
 * priced with `prices` (the worker's `model.prices`), as the planner's are.
 */
export function createApprovalJudges(judges: Readonly<Record<string, ApprovalJudge>>, prices?: PriceTable): Record<string, (request: ApprovalJudgeRequest) => Promise<ApprovalJudgement>> {
  const judge = async (request: ApprovalJudgeRequest): Promise<ApprovalJudgement> => {
    const evaluator = judges[request.evaluator];
    if (!evaluator) {
      throw ApplicationFailure.nonRetryable(`no approval judge "${request.evaluator}" on this worker; its judges: ${Object.keys(judges).join(', ') || 'none'}`, 'judge_unknown');
    }
    const answer = await evaluator(request);
    const judgement = approvalJudgementSchema().safeParse(answer);
    if (!judgement.success) throw ApplicationFailure.nonRetryable(`approval judge "${request.evaluator}" answered no judgement: ${describeIssues(judgement.error)}`, 'judge_answer');
    return pricedJudgement(judgement.data, prices);
  };
  return { [judgeApprovalActivityName]: judge };
}
