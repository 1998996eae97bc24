import { z } from 'zod';
import type { JsonValue } from './json';
import { builtOnce } from './lazy';
import { modelCallCostSchema } from './pricing';

/** The activity that runs a `judge` rule's evaluator on the worker. */
export const judgeApprovalActivityName = 'approvals.judge';

/** What a judge is asked: the call, where it runs, and the rule that sent it. */
export interface ApprovalJudgeRequest {
  readonly evaluator: string;
  readonly workflowId: string;
  readonly agent: string;
  readonly sessionId?: string;
  readonly toolCallId: string;
  readonly name: string;
  readonly args: JsonValue;
  /** The approval digest of the call (contracts/approval-digest.ts). */
  readonly digest: string;
  readonly rules: { readonly version: string; readonly rule: string };
}

/**
 * What a judge answers: approve or reject (with how sure it is), or escalate to a person; and,
 * for a judge that asked a model, that model call's usage (and cost), which the run counts in its
 * budgets like its planner's model calls.
 */
export const approvalJudgementSchema = builtOnce(() =>
  z.object({
    verdict: z.enum(['approve', 'reject', 'escalate']),
    /** 0 to 1; a verdict below the rule's `minConfidence` goes to a person. Absent: sure. */
    confidence: z.number().min(0).max(1).optional(),
    reason: z.string().max(2_000).optional(),
    /**
     * The judge asked a model (one call): which, and the tokens the provider reported (absent:
     * unknown; the run then counts a call of unknown tokens).
     */
    usage: z
      .object({
        model: z.string().min(1).max(200).optional(),
        promptTokens: z.number().int().nonnegative().optional(),
        completionTokens: z.number().int().nonnegative().optional(),
        totalTokens: z.number().int().nonnegative().optional(),
        cachedPromptTokens: z.number().int().nonnegative().optional(),
      })
      .optional(),
    /** What that call cost; the worker prices `usage` with its price table when the judge does not. */
    cost: modelCallCostSchema().optional(),
  }),
);
export type ApprovalJudgement = z.infer<ReturnType<typeof approvalJudgementSchema>>;

/** A judge of the worker's `approvalJudges`: a function, or one that asks a model. */
export type ApprovalJudge = (request: ApprovalJudgeRequest) => Promise<ApprovalJudgement> | ApprovalJudgement;
