import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PendingInputs } from './hitl';
import type { EventPage } from './events';
import type { Message } from './messages';
import type { RunStatusReport } from './run';
import { runOperationMessages } from './operations';

/** Workflow type name of an agent run. */
export const agentRunWorkflowType = 'agentRun';

/** Current state, iteration, pending calls and budget of a run. */
export const statusQuery = defineQuery<RunStatusReport>('status');

/**
 * Conversation messages `[from, to)` of the run (to defaults to the end). Activities use it to
 * rebuild a transcript they do not have cached; queries add nothing to history.
 */
export const transcriptQuery = defineQuery<{ messages: Message[]; total: number; next?: number }, [unknown?]>('transcript');

/** Events with seq greater than `afterSeq` (at most `limit`). Args: `{ afterSeq?, limit? }`. */
export const eventsQuery = defineQuery<EventPage, [unknown?]>('events');

// Signals: fire-and-forget, plain JSON payloads, so `temporal workflow signal` can send them.
// Payloads are typed `unknown` because they are parsed with zod inside the workflow; bad
// input becomes a `signal_rejected` event. Updates: the same operations, validated before they
// enter history, answering the caller. Each operation's pair is its row of the operations table
// (operations.ts), which names them on the wire; these are the same definitions by their
// published names.

/** `{ reason? }`: pause at the next safe point (the `pause` row of the operations table). */
export const pauseSignal = runOperationMessages.pause.signal;
/** `{ reason? }`: resume a paused run. */
export const resumeSignal = runOperationMessages.resume.signal;
/** An intervention (see interventionSchema): `{ kind: 'inject_message', role: 'user', content }` … */
export const interveneSignal = runOperationMessages.intervene.signal;
/** `{ reason? }`: end the run now, cancelling in-flight calls. */
export const killSignal = runOperationMessages.kill.signal;
/** `{ maxToolCalls?, maxIterations?, timeBudgetMs?, … }`: change caps while running. */
export const setBudgetSignal = runOperationMessages.setBudget.signal;
/** `{ version, rules }`: replace the run's approval rules; waiting calls are judged again. */
export const setApprovalRulesSignal = runOperationMessages.setApprovalRules.signal;
/** Resolves once the run is paused at a safe point; fails with `pause_timeout` otherwise. */
export const pauseUpdate = runOperationMessages.pause.update;
/** Resumes a paused run; rejected when the run is not paused. Answers the new status. */
export const resumeUpdate = runOperationMessages.resume.update;
/** Queues or applies an intervention; answers its receipt. */
export const interveneUpdate = runOperationMessages.intervene.update;
/** Ends the run; resolves once it has ended, with the final status. */
export const killUpdate = runOperationMessages.kill.update;
/** Changes caps; answers the new cost report. */
export const setBudgetUpdate = runOperationMessages.setBudget.update;
/** Replaces the approval rules; answers what still waits for people. */
export const setApprovalRulesUpdate = runOperationMessages.setApprovalRules.update;
/** An answer to one await item (see awaitAnswerSchema); bad answers become `signal_rejected` events. */
export const answerSignal = runOperationMessages.answer.signal;
/** A decision on a call waiting for confirmation (see callDecisionSchema). */
export const decideSignal = runOperationMessages.decide.signal;
/** Answers one await item; rejected (with the reason) when the answer does not fit the item. */
export const answerAwaitUpdate = runOperationMessages.answer.update;
/** Decides a call waiting for confirmation; rejected when no such call waits or the edit is invalid. */
export const decideCallUpdate = runOperationMessages.decide.update;

// The run's own messages, which are no operator's operation.

/** `EarlyToolCall`: sent by the model activity for a call complete in the stream (early dispatch). */
export const earlyToolCallSignal = defineSignal<[unknown]>('earlyToolCall');
/**
 * `ChildWaiting` (see childWaitingSchema): sent by a sub-agent run to its parent when it starts or
 * stops waiting for people, so that the parent does not charge that wait to its time budget.
 */
export const childWaitingSignal = defineSignal<[unknown]>('childWaiting');
/** Long-poll: resolves when events after `afterSeq` exist (or the run ends, or the timeout passes). */
export const waitForEventsUpdate = defineUpdate<EventPage, [unknown]>('waitForEvents');

/** What the run waits on from humans: open approvals and the open await barrier. */
export const pendingInputsQuery = defineQuery<PendingInputs>('pendingInputs');
