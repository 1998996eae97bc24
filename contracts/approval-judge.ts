import { z } from 'zod';
import type { JsonValue } from './json';
import { builtOnce } from './lazy';

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

/** What a judge answers: approve or reject (with how sure it is), or escalate to a person. */
export const approvalJudgementSchema = builtOnce(() =>
  z.object({
    verdict: z.enum(['approve', 'reject', 'escalate']),
    /** 0 to 1; a verdict below the rule's `minConfidence` goes to a person. Absent: sure. */
    confidence: z.number().min(0).max(1).optional(),
    reason: z.string().max(2_000).optional(),
  }),
);
export type ApprovalJudgement = z.infer<ReturnType<typeof approvalJudgementSchema>>;

/** A judge of the worker's `approvalJudges`: a function, or one that asks a model. */
export type ApprovalJudge = (request: ApprovalJudgeRequest) => Promise<ApprovalJudgement> | ApprovalJudgement;
