import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { InterventionReceipt, PauseResult } from './control';
import type { PendingInputs } from './hitl';
import type { EventPage } from './events';
import type { Message } from './messages';
import type { CostReport, RunStatusReport } from './run';

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
// input becomes a `signal_rejected` event.

/** `{ reason? }`: pause at the next safe point. */
export const pauseSignal = defineSignal<[unknown?]>('pause');
/** `{ reason? }`: resume a paused run. */
export const resumeSignal = defineSignal<[unknown?]>('resume');
/** An intervention (see interventionSchema): `{ kind: 'inject_message', role: 'user', content }` … */
export const interveneSignal = defineSignal<[unknown]>('intervene');
/** `{ reason? }`: end the run now, cancelling in-flight calls. */
export const killSignal = defineSignal<[unknown?]>('kill');
/** `EarlyToolCall`: sent by the model activity for a call complete in the stream (early dispatch). */
export const earlyToolCallSignal = defineSignal<[unknown]>('earlyToolCall');
/** `{ maxToolCalls?, maxIterations?, timeBudgetMs?, … }`: change caps while running. */
export const setBudgetSignal = defineSignal<[unknown]>('setBudget');
/**
 * `ChildWaiting` (see childWaitingSchema): sent by a sub-agent run to its parent when it starts or
 * stops waiting for people, so that the parent does not charge that wait to its time budget.
 */
export const childWaitingSignal = defineSignal<[unknown]>('childWaiting');

// Updates: the same operations, validated before they enter history, answering the caller.

/** Resolves once the run is paused at a safe point; fails with `pause_timeout` otherwise. */
export const pauseUpdate = defineUpdate<PauseResult, [unknown]>('pauseRun');
/** Resumes a paused run; rejected when the run is not paused. Answers the new status. */
export const resumeUpdate = defineUpdate<RunStatusReport, [unknown]>('resumeRun');
/** Queues or applies an intervention; answers its receipt. */
export const interveneUpdate = defineUpdate<InterventionReceipt, [unknown]>('interveneRun');
/** Ends the run; resolves once it has ended, with the final status. */
export const killUpdate = defineUpdate<RunStatusReport, [unknown]>('killRun');
/** Changes caps; answers the new cost report. */
export const setBudgetUpdate = defineUpdate<CostReport, [unknown]>('setBudgetRun');
/** Long-poll: resolves when events after `afterSeq` exist (or the run ends, or the timeout passes). */
export const waitForEventsUpdate = defineUpdate<EventPage, [unknown]>('waitForEvents');

// Human in the loop: await barriers and confirmation of tool calls.

/** What the run waits on from humans: open approvals and the open await barrier. */
export const pendingInputsQuery = defineQuery<PendingInputs>('pendingInputs');
/** An answer to one await item (see awaitAnswerSchema); bad answers become `signal_rejected` events. */
export const answerSignal = defineSignal<[unknown]>('answer');
/** A decision on a call waiting for confirmation (see callDecisionSchema). */
export const decideSignal = defineSignal<[unknown]>('decide');
/** Answers one await item; rejected (with the reason) when the answer does not fit the item. */
export const answerAwaitUpdate = defineUpdate<PendingInputs, [unknown]>('answerAwait');
/** Decides a call waiting for confirmation; rejected when no such call waits or the edit is invalid. */
export const decideCallUpdate = defineUpdate<PendingInputs, [unknown]>('decideCall');
