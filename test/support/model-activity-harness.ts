/**
 * Runs the real `callModel` activity (MockActivityEnvironment, no server) against the fake
 * OpenAI server through the real `openai` client: shared by the model activity unit tests.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import type { Message } from '../../contracts';
import { createModelActivities, type ModelActivities, type ModelActivityDependencies } from '../../activities/model';
import { emptyDigest, type ModelAnswer, type ModelCallInput } from '../../workflows/planners/llm';

/** Activity environments without the SDK's failure logs (the tests assert the failures). */
export const quietActivityEnv = (): MockActivityEnvironment => new MockActivityEnvironment({}, { logger: new DefaultLogger('ERROR') });

/** The user message of {@link modelCallInput}. */
export const quoteRequest: Message = { role: 'user', content: 'quote AAPL and MSFT' };

/** A first-turn call of `watchlist-llm`, with `partial` overriding. */
export function modelCallInput(partial: Partial<ModelCallInput> = {}): ModelCallInput {
  return {
    workflowId: 'wf',
    runId: 'run',
    agent: 'watchlist-llm',
    model: 'gpt-test',
    turn: 0,
    instructions: 'The watchlist is: ["TSLA"]',
    baseCount: 0,
    baseDigest: emptyDigest,
    newMessages: [quoteRequest],
    tools: ['get_quote', 'ask_clarification'],
    ...partial,
  };
}

/** Runs `callModel` once, of activities built from these dependencies (or of these activities, sharing their worker state). */
export async function runCallModel(deps: ModelActivityDependencies | ModelActivities, raw: ModelCallInput): Promise<ModelAnswer> {
  const activities = 'callModel' in deps ? deps : createModelActivities(deps);
  return quietActivityEnv().run(activities.callModel, raw);
}

/** The ApplicationFailure `callModel` fails with; throws when it succeeds or fails otherwise. */
export async function callModelFailure(deps: ModelActivityDependencies, raw: ModelCallInput): Promise<ApplicationFailure> {
  const err = await runCallModel(deps, raw).catch((e: unknown) => e);
  if (!(err instanceof ApplicationFailure)) throw new Error(`expected an ApplicationFailure, got ${String(err)}`);
  return err;
}
