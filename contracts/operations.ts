import type { z } from 'zod';
import type { UpdateDefinition } from '@temporalio/common';
import {
  answerAwaitUpdate,
  answerSignal,
  decideCallUpdate,
  decideSignal,
  interveneSignal,
  interveneUpdate,
  killSignal,
  killUpdate,
  pauseSignal,
  pauseUpdate,
  resumeSignal,
  resumeUpdate,
  setBudgetSignal,
  setBudgetUpdate,
} from './definitions';
import { budgetChangeSchema, interventionSchema, killRequestSchema, pauseRequestSchema, resumeRequestSchema } from './control';
import { awaitAnswerSchema, callDecisionSchema } from './hitl';

/**
 * Every operation an operator or a UI performs on a run, by name, as it travels: the payload it
 * takes (a schema builder, see lazy.ts), the signal that sends it without an answer (what
 * `temporal workflow signal --name <name>` sends; bad input becomes a `signal_rejected` event)
 * and the update that sends it validated, with an answer.
 *
 * The one table the rest derive from: the workflow registers both handlers of each operation
 * from it (workflows/run/run-handlers.ts), the API server its HTTP routes and WebSocket control
 * messages (server/operations.ts), `AgentClient.signal` sends from it, and the readers of recorded
 * histories recognise its messages by it ({@link runOperationOf}).
 */
export const runOperationMessages = {
  pause: { payload: pauseRequestSchema, signal: pauseSignal, update: pauseUpdate },
  resume: { payload: resumeRequestSchema, signal: resumeSignal, update: resumeUpdate },
  kill: { payload: killRequestSchema, signal: killSignal, update: killUpdate },
  intervene: { payload: interventionSchema, signal: interveneSignal, update: interveneUpdate },
  setBudget: { payload: budgetChangeSchema, signal: setBudgetSignal, update: setBudgetUpdate },
  decide: { payload: callDecisionSchema, signal: decideSignal, update: decideCallUpdate },
  answer: { payload: awaitAnswerSchema, signal: answerSignal, update: answerAwaitUpdate },
} as const;

/** The name of an operation on a run: also the name of its signal. */
export type RunOperationName = keyof typeof runOperationMessages;

/** What a caller sends for an operation (its payload schema's input). */
export type RunOperationRequest<N extends RunOperationName> = z.input<ReturnType<(typeof runOperationMessages)[N]['payload']>>;

/** What an operation's update answers. */
export type RunOperationAnswer<N extends RunOperationName> = (typeof runOperationMessages)[N]['update'] extends UpdateDefinition<infer R, [unknown]> ? R : never;

let operationByMessage: ReadonlyMap<string, RunOperationName> | undefined;

/**
 * The operation a signal or update of a run's history carries, by the message's name (its signal's
 * or its update's), or undefined for any other message (queries, internal signals).
 */
export function runOperationOf(messageName: string): RunOperationName | undefined {
  operationByMessage ??= new Map(
    (Object.keys(runOperationMessages) as RunOperationName[]).flatMap((op) => [
      [runOperationMessages[op].signal.name, op] as const,
      [runOperationMessages[op].update.name, op] as const,
    ]),
  );
  return operationByMessage.get(messageName);
}
