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
 * messages (server/operations.ts), and `AgentClient.signal` sends from it.
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
