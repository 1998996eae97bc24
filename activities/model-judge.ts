import type OpenAI from 'openai';
import { approvalJudgementSchema, type ApprovalJudge } from '../contracts/approval-judge';
import { describeIssues } from '../contracts/json';

const defaultInstructions =
  'You review tool calls an AI agent wants to make, for a human who would otherwise approve each one. ' +
  'Approve a call that is safe and matches its purpose, reject one that is harmful or wrong, and escalate when you cannot tell.';

/**
 * A judge that asks a model (an OpenAI-compatible chat endpoint, through the `openai` client)
 * about the call: the model answers JSON `{ "verdict": "approve" | "reject" | "escalate",
 * "confidence": 0..1, "reason": "…" }`. An answer that is not such JSON throws, so the run asks a
 * person; so do the client's errors (an outage, a rate limit). Its model call is the run's: the
 * judgement carries its usage, priced with the worker's `model.prices`, and the run counts it in
 * its token, model-call and money budgets (a `model_usage` event naming the judge).
 */
export function modelJudge(options: { readonly openai: OpenAI; readonly model: string; readonly instructions?: string }): ApprovalJudge {
  return async (request) => {
    const completion = await options.openai.chat.completions.create({
      model: options.model,
      messages: [
        { role: 'system', content: `${options.instructions ?? defaultInstructions}\nAnswer with JSON only: {"verdict": "approve" | "reject" | "escalate", "confidence": <0 to 1>, "reason": "<one sentence>"}.` },
        { role: 'user', content: JSON.stringify({ agent: request.agent, tool: request.name, arguments: request.args }) },
      ],
    });
    const text = completion.choices[0]?.message?.content ?? '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(text.replace(/^```(?:json)?\s*|\s*```$/g, ''));
    } catch {
      throw new Error(`the judge model ${options.model} answered no JSON: ${text.slice(0, 200)}`);
    }
    const judgement = approvalJudgementSchema().safeParse(parsed);
    if (!judgement.success) throw new Error(`the judge model ${options.model} answered no judgement: ${describeIssues(judgement.error)}`);
    // The call is the run's: its tokens (and cost, priced by the worker) count in the run's budgets.
    const reported = completion.usage;
    const usage = {
      model: options.model,
      ...(reported
        ? {
            promptTokens: reported.prompt_tokens,
            completionTokens: reported.completion_tokens,
            totalTokens: reported.total_tokens,
            ...(reported.prompt_tokens_details?.cached_tokens !== undefined ? { cachedPromptTokens: reported.prompt_tokens_details.cached_tokens } : {}),
          }
        : {}),
    };
    const { verdict, confidence, reason } = judgement.data;
    return { verdict, ...(confidence !== undefined ? { confidence } : {}), ...(reason !== undefined ? { reason } : {}), usage };
  };
}
