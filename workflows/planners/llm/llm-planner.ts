import { describeIssues, type JsonValue } from '../../../contracts/json';
import type { Message } from '../../../contracts/messages';
import type { PlanResult, Termination } from '../../../contracts/plan';
import type { Planner, PlannerContext } from '../../agents/planner';
import { answerToStep, finalizeNotice, type AnswerContext } from './answer-to-plan';
import { defaultMaxRepairTurns, llmRunOptionsSchema, type LlmPlannerConfig } from './config';
import { enabledHumanTools } from './human-tools';
import { modelActivityCaller, modelRunFailure, type ModelCaller } from './model-activity-proxy';
import type { ModelCallInput } from '../../../contracts/model-call';
import { markSent, sentWindow, unsentMessages } from './transcript-window';

/** What {@link createLlmPlanner} needs. */
export interface LlmPlannerSetup {
  /** Names of the agent's tools, offered to the model on every turn but the Finalize turn. */
  readonly toolNames: readonly string[];
  readonly config: LlmPlannerConfig;
  /** The run's `plannerOptions` (see llmRunOptionsSchema). */
  readonly options?: JsonValue;
  /** Replaces the model activity (unit tests). */
  readonly callModel?: ModelCaller;
}

/**
 * A planner that asks a model, through the `callModel` activity, what to do next. Each call
 * carries only the messages the model has not seen, plus the system instructions as the
 * runtime rendered them for this turn, so a turn adds roughly constant bytes to workflow
 * history; the worker supplies the rest of the conversation.
 *
 * @throws Error when the run's plannerOptions are invalid (the run fails with `invalid_input`).
 * Turns throw ApplicationFailure with a model error type (see errors.ts) when the model
 * cannot be used or keeps answering with invalid output.
 * @example
 * createLlmPlanner({ toolNames: ['get_quote'], config: { model: 'gpt-4o-mini' } });
 */
export function createLlmPlanner(setup: LlmPlannerSetup): Planner {
  const parsed = llmRunOptionsSchema().safeParse(setup.options ?? {});
  if (!parsed.success) throw new Error(`invalid plannerOptions for an LLM agent (accepted: { model?, maxRepairTurns? }): ${describeIssues(parsed.error)}`);
  const { config } = setup;
  const model = parsed.data.model ?? config.model;
  const maxRepairTurns = parsed.data.maxRepairTurns ?? config.maxRepairTurns ?? defaultMaxRepairTurns;
  const humanTools = enabledHumanTools(config.humanTools);
  const offeredTools = [...setup.toolNames, ...humanTools.map((t) => t.name)];
  const callModel = setup.callModel ?? modelActivityCaller(config.activity);

  const decide = async (messages: readonly Message[], ctx: PlannerContext, finalize?: Termination): Promise<PlanResult> => {
    let window = unsentMessages(ctx.state, messages, config.maxInlineTranscriptBytes, ctx.transcriptEpoch);
    // The runtime renders `{key}` placeholders from session state before every turn.
    const instructions = ctx.instructions;
    const extraMessages: Message[] = finalize ? [finalizeNotice(finalize)] : [];
    const answerContext: AnswerContext = {
      turn: ctx.turn,
      humanTools: finalize ? [] : humanTools,
      ...(finalize ? { finalize } : {}),
      ...(config.outputSchema ? { outputSchema: config.outputSchema } : {}),
    };
    for (let repairs = 0; ; repairs++) {
      const input: ModelCallInput = {
        workflowId: ctx.workflowId,
        runId: ctx.runId,
        agent: ctx.agent,
        model,
        turn: ctx.turn,
        ...(instructions !== undefined ? { instructions } : {}),
        baseCount: window.baseCount,
        baseDigest: window.baseDigest,
        newMessages: [...window.newMessages],
        extraMessages: [...extraMessages],
        tools: finalize ? [] : ctx.toolsets ? [...setup.toolNames, ...ctx.toolsets.flatMap((t) => t.tools), ...humanTools.map((t) => t.name)] : offeredTools,
        ...(ctx.toolsets && !finalize ? { toolsets: ctx.toolsets.map((t) => ({ server: t.server, version: t.version, ...(t.prefix ? { prefix: t.prefix } : {}) })) } : {}),
        ...(!finalize && ctx.earlyTools?.length ? { earlyTools: [...ctx.earlyTools] } : {}),
        finalize: finalize !== undefined,
        ...(config.outputSchema ? { outputSchema: config.outputSchema.name } : {}),
      };
      const answer = await callModel(input, ctx.providerWaits);
      markSent(ctx.state, window, ctx.transcriptEpoch);
      window = sentWindow(window);
      ctx.recordModelUsage({ model, tokens: answer.usage?.totalTokens ?? 0, modelCalls: 1, ...(answer.usage ? {} : { tokensUnknown: true }), ...(answer.cost ? { cost: answer.cost } : {}) });
      if (!answer.usage) ctx.emitNote({ text: `the provider reported no token usage for ${model}; the token budget counts this call as unknown`, labels: { planner: 'llm', kind: 'no_usage' } });
      if (answer.finishReason === 'length') {
        ctx.emitNote({ text: `the answer of ${model} was cut at the token limit (finish reason length); it may be incomplete`, labels: { planner: 'llm', kind: 'truncated' } });
      }
      const step = answerToStep(answer, answerContext);
      if (step.type === 'plan') return step.plan;
      if (repairs >= maxRepairTurns) {
        throw modelRunFailure('model_invalid_output', model, `${step.problem} (still invalid after ${repairs} repair turn(s))`);
      }
      ctx.emitNote({ text: `repair turn ${repairs + 1} of ${maxRepairTurns}: ${step.problem}`, labels: { planner: 'llm', kind: 'repair' } });
      extraMessages.push(...step.messages);
    }
  };

  return {
    planStart: (input, ctx) => decide(input.messages, ctx),
    planResume: (input, ctx) => decide(input.messages, ctx, input.finalize),
  };
}
