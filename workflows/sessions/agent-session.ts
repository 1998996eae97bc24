import {
  ChildWorkflowFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  executeChild,
  makeContinueAsNewFunc,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  sessionInputSchema,
  sessionOperationMessages,
  sessionQuery,
  sessionEventsQuery,
  sessionRunWorkflowId,
  type ParsedSessionInput,
  type ParsedSessionMessage,
  type SessionInput,
  type SessionReport,
  withRunUsage,
} from '../../contracts/session';
import { describeIssues, fieldNestedTooDeep, maxInputJsonDepth } from '../../contracts/json';
import type { Message } from '../../contracts/messages';
import { agentRunWorkflowType } from '../../contracts/definitions';
import type { RunInput, RunResult } from '../../contracts/run';
import { childRunLabels } from '../calls/child-run-labels';
import { childTenant } from '../calls/child-tenant';
import { rejection } from '../kernel/failures';
import { decidePatchBaseline, refuseSessionWithoutFollowMarker } from '../versioning/patches';
import { refuseInputNestedTooDeep } from '../run/input-depth';
import { decideMessage, duplicateAnswer, settle } from './message-ids';
import type { ActiveRun } from './busy-policy';
import { busyDecision, busyRefusal, endRun, takeMessage } from './session-intake';
import { applyQueueEdit, queueEditRefusal, queueView } from './queue-edits';
import { recordSessionEvent, sessionEventsAfter } from './session-events';

/** The worker version (`deployment.buildId`) running this workflow task, if versioned. */
function currentVersion(): string | undefined {
  const version = workflowInfo().currentDeploymentVersion;
  return version ? `${version.deploymentName}.${version.buildId}` : undefined;
}

/**
 * Whether the session should continue as new onto its deployment's new current version: the
 * target changed, and the session did not just come from this very version (a move that could
 * not leave it, e.g. an operator's pinned override, is not retried in a loop). Always false on
 * unversioned workers. A session of 1.0.0 or later takes `sessions-follow-new-versions` from its
 * baseline; an older one asks it here, where its marker was recorded.
 *
 * @throws OutsideSupportWindowError on replay of a session recorded before 0.5.0 that got here.
 */
function shouldFollowNewVersion(state: ParsedSessionInput): boolean {
  if (!workflowInfo().targetWorkerDeploymentVersionChanged) return false;
  const here = currentVersion();
  if (here === undefined || state.movedFrom === here) return false;
  refuseSessionWithoutFollowMarker();
  return true;
}

/** Continues the session as new on the deployment's current version (worker versioning). */
function continueOnCurrentVersion(input: ParsedSessionInput): Promise<never> {
  return makeContinueAsNewFunc<typeof agentSession>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(input);
}

/** The fields of a session's input that its starter gives; the others it carries across continue-as-new. */
const startFields: ReadonlySet<string> = new Set(['sessionState', 'history', 'policy', 'confirmation', 'labels']);

/**
 * The sendMessage validator's check of a message: its depth before the recursive schema (a value
 * some thousands of levels deep overflowed the stack there), then the schema.
 *
 * @throws ApplicationFailure `invalid_payload` naming what is wrong.
 */
function checkMessage(payload: unknown): ParsedSessionMessage {
  const field = fieldNestedTooDeep(payload);
  if (field !== undefined) throw rejection(`invalid message: ${field}: nested deeper than ${maxInputJsonDepth} levels`, 'invalid_payload');
  const check = sessionOperationMessages.sendMessage.payload().safeParse(payload);
  if (!check.success) throw rejection(`invalid message: ${describeIssues(check.error)}`, 'invalid_payload');
  return check.data;
}

/**
 * Refuses a session input nested too deep, before the recursive schemas (see
 * {@link refuseInputNestedTooDeep}, shared with runs): what its starter gave a new session (what a
 * continued one carries is its own) deeper than a run takes, which would fail each of its runs;
 * anything deeper than a run's carried state (its queue and runs, which any client can send too).
 *
 * @throws ApplicationFailure `invalid_input` naming the field.
 */
function refuseSessionInputNestedTooDeep(rawInput: SessionInput): void {
  const fresh = workflowInfo().continuedFromExecutionRunId === undefined;
  refuseInputNestedTooDeep('session', rawInput, (field) => fresh && startFields.has(field));
}

/**
 * A conversation as one long-lived workflow: each user message becomes a child `agentRun`
 * that starts from the session state and history the previous runs left. Runs of a session
 * are sequential; the session continues as new every `runsPerExecution` runs (or when
 * Temporal suggests it), carrying its compacted state, so a session can last indefinitely.
 * On versioned workers a session is pinned like a run, and its runs start on its version; when
 * a new version becomes current, the session continues as new onto it before its next run
 * (runs already started finish where they are).
 *
 * A session started on 1.0.0 or later records the release's baseline marker first, as a run
 * does. Older sessions recorded none: they ask each patch, and are refused only where the code
 * of the releases before the support window took another branch (see
 * {@link refuseSessionWithoutFollowMarker}).
 *
 * @throws ApplicationFailure `invalid_input` when the input does not parse.
 */
export async function agentSession(rawInput: SessionInput): Promise<SessionReport> {
  decidePatchBaseline();
  refuseSessionInputNestedTooDeep(rawInput);
  const parsed = sessionInputSchema().safeParse(rawInput);
  if (!parsed.success) throw rejection(`invalid session input: ${describeIssues(parsed.error)}`, 'invalid_input');
  const state: ParsedSessionInput = parsed.data;
  const sessionId = workflowInfo().workflowId;
  let closed = false;
  let runsThisExecution = 0;
  /** The run in progress, while one is (what a message's whenBusy acts on). */
  let active: ActiveRun | undefined;

  const report = (): SessionReport => ({
    agent: state.agent,
    ...(state.tenant !== undefined ? { tenant: state.tenant } : {}),
    open: !closed,
    sessionState: state.sessionState,
    historyLength: state.history.length,
    runs: state.runs.slice(-50),
    ...(state.usage ? { usage: state.usage } : {}),
    whenBusy: state.whenBusy,
    queue: queueView(state),
  });

  // The session's operations, from their rows (contracts/session.ts), in the order its recorded
  // histories saw.
  const { close, sendMessage, editQueue } = sessionOperationMessages;
  setHandler(sessionQuery, report);
  setHandler(sessionEventsQuery, (afterSeq?: number) => sessionEventsAfter(state, afterSeq));
  setHandler(close.signal, () => {
    closed = true;
  });
  setHandler(
    sendMessage.update,
    (payload) => {
      const message = sendMessage.payload().parse(payload);
      const decision = decideMessage(state.messageIds ?? [], message.messageId, state.nextRunNumber);
      // A message it took already (a retry, a webhook delivered twice): its run, nothing queued.
      if (decision.type === 'duplicate') {
        recordSessionEvent(state, { type: 'message_repeated', messageId: decision.taken.messageId, runNumber: decision.taken.runNumber });
        return duplicateAnswer(state.runs, decision.taken, sessionRunWorkflowId(sessionId, decision.taken.runNumber));
      }
      // What its policy (whenBusy) makes of it while a run is active: queued, run next, or steered into that run.
      return takeMessage(state, sessionId, busyDecision(state, active, message), message, decision.messageId);
    },
    {
      validator: (payload) => {
        const message = checkMessage(payload);
        // A retry of a message it took still gets its run, whatever the session's state now.
        if (decideMessage(state.messageIds ?? [], message.messageId, state.nextRunNumber).type === 'duplicate') return;
        if (closed) throw rejection(`session ${sessionId} is closed: it takes no more messages`, 'run_ended');
        if (message.agent !== undefined && message.agent !== state.agent) throw rejection(`session ${sessionId} runs agent ${state.agent}, not ${message.agent}: the message was not queued`, 'wrong_agent');
        // `reject` while a run is active: refused before the update is taken, so nothing of it is recorded.
        const decision = busyDecision(state, active, message);
        if (decision.type === 'reject') throw busyRefusal(sessionId, decision.active);
      },
    },
  );
  setHandler(editQueue.update, (payload) => applyQueueEdit(state, editQueue.payload().parse(payload)), {
    validator: (payload) => {
      const check = editQueue.payload().safeParse(payload);
      if (!check.success) throw rejection(`invalid queue edit: ${describeIssues(check.error)}`, 'invalid_payload');
      const refusal = queueEditRefusal(state, sessionId, check.data);
      if (refusal) throw rejection(refusal, 'not_queued');
    },
  });

  for (;;) {
    await condition(() => state.queue.length > 0 || closed);
    if (!closed && state.queue.length > 0 && shouldFollowNewVersion(state)) {
      // Between runs, nothing of the session's own code is in flight: the queued messages carry over.
      await condition(allHandlersFinished);
      await continueOnCurrentVersion({ ...state, runs: state.runs.slice(-50), movedFrom: currentVersion() });
    }
    const next = state.queue.shift();
    if (!next) break;
    const record = state.runs.find((r) => r.runNumber === next.runNumber);
    if (record) record.status = 'running';
    const userMessage: Message = { role: 'user', content: next.content };
    const running: ActiveRun = { runNumber: next.runNumber, workflowId: next.workflowId, nextCount: 0, steers: [] };
    recordSessionEvent(state, { type: 'run_started', runNumber: next.runNumber, workflowId: next.workflowId, ...(next.messageId !== undefined ? { messageId: next.messageId } : {}) });
    active = running;
    let ended: RunResult | undefined;
    const tenant = childTenant(state.tenant);
    try {
      const result = await executeChild<(input: RunInput) => Promise<RunResult>>(agentRunWorkflowType, {
        workflowId: next.workflowId,
        args: [
          {
            agent: state.agent,
            sessionId,
            messages: [userMessage],
            history: state.history,
            sessionState: state.sessionState,
            labels: state.labels,
            ...(state.policy ? { policy: state.policy } : {}),
            ...(state.confirmation ? { confirmation: state.confirmation } : {}),
            ...(next.plannerOptions !== undefined ? { plannerOptions: next.plannerOptions } : {}),
            ...(tenant ? { tenant: tenant.tenant } : {}),
          },
        ],
        // A run outlives a session that is terminated by force; ops tools can still reach it.
        parentClosePolicy: ParentClosePolicy.ABANDON,
        ...childRunLabels(state.agent, undefined, { sessionId }, tenant),
      });
      ended = result;
      state.messageIds = settle(state.messageIds ?? [], next.runNumber, result.status);
      if (record) {
        record.status = result.status;
        if (result.final) record.final = result.final.text;
        record.tokens = result.cost.tokens.used;
        if (result.cost.cost) record.cost = result.cost.cost;
      }
      state.usage = withRunUsage(state.usage, result.cost);
    } catch (err) {
      if (!(err instanceof ChildWorkflowFailure)) throw err;
      state.messageIds = settle(state.messageIds ?? [], next.runNumber, 'failed');
      if (record) {
        record.status = 'failed';
        record.error = err.cause?.message ?? err.message;
      }
    }
    active = undefined;
    endRun(state, sessionId, running, userMessage, ended, record);
    runsThisExecution += 1;
    if (!closed && (runsThisExecution >= state.runsPerExecution || workflowInfo().continueAsNewSuggested)) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof agentSession>({ ...state, runs: state.runs.slice(-50) });
    }
  }
  await condition(allHandlersFinished);
  return report();
}
