/**
 * The session's side of its messages' policies (busy-policy.ts): performs what `decideBusy` and
 * `afterRun` say on the session's carried state, and signals its active run (a kill that ends it,
 * an injected message that steers it). Signals are the only commands here, and only for a
 * message whose policy is not `enqueue`.
 */
import { getExternalWorkflowHandle } from '@temporalio/workflow';
import { interveneSignal, killSignal } from '../../contracts/definitions';
import type { Message } from '../../contracts/messages';
import type { RunResult } from '../../contracts/run';
import { sessionRunWorkflowId, type ParsedSessionInput, type SessionMessage, type SessionRunRecord } from '../../contracts/session';
import { rejection } from '../kernel/failures';
import { afterRun, decideBusy, nextPosition, type ActiveRun, type BusyDecision } from './busy-policy';
import { remember } from './message-ids';
import { recordSessionEvent } from './session-events';

type Session = ParsedSessionInput;

/** The policy that applies to a message: its own, or the session's. */
export function busyDecision(state: Session, active: ActiveRun | undefined, message: Pick<SessionMessage, 'whenBusy'>): BusyDecision {
  return decideBusy(active, message.whenBusy ?? state.whenBusy);
}

/** The refusal of a message under `reject` while a run is active, naming that run. */
export function busyRefusal(sessionId: string, active: ActiveRun): Error {
  return rejection(`session ${sessionId} is busy with run ${active.workflowId} (run ${active.runNumber}); the message was not queued (whenBusy: reject)`, 'session_busy');
}

/** Queues a new run for a message: at the back, or right after the active run. */
function queueRun(state: Session, sessionId: string, content: string, messageId: string, extra: { readonly plannerOptions?: unknown; readonly at?: number }): SessionRunRecord {
  const runNumber = state.nextRunNumber++;
  const workflowId = sessionRunWorkflowId(sessionId, runNumber);
  const record: SessionRunRecord = { runNumber, workflowId, messageId, status: 'queued', ...(extra.at !== undefined ? { delivery: 'next' as const } : {}) };
  const queued = { runNumber, workflowId, content, messageId, ...(extra.plannerOptions !== undefined ? { plannerOptions: extra.plannerOptions as never } : {}) };
  if (extra.at === undefined) state.queue.push(queued);
  else state.queue.splice(extra.at, 0, queued);
  state.runs.push(record);
  return record;
}

/**
 * Takes a new message as `decision` says and answers its record: a run queued (at the back, or
 * right after the active run, which an `interrupt` or `rollback` ends now), or the active run
 * it was steered into.
 */
export function takeMessage(state: Session, sessionId: string, decision: BusyDecision, message: SessionMessage, messageId: string): SessionRunRecord {
  switch (decision.type) {
    case 'reject':
      throw busyRefusal(sessionId, decision.active);
    case 'enqueue': {
      const record = queueRun(state, sessionId, message.content, messageId, { plannerOptions: message.plannerOptions });
      state.messageIds = remember(state.messageIds ?? [], { messageId, runNumber: record.runNumber });
      recordSessionEvent(state, { type: 'message_taken', messageId, runNumber: record.runNumber, delivery: 'queued', whenBusy: message.whenBusy ?? state.whenBusy });
      return record;
    }
    case 'steer': {
      const { active } = decision;
      active.steers.push({ messageId, content: message.content, ...(message.plannerOptions !== undefined ? { plannerOptions: message.plannerOptions } : {}) });
      state.messageIds = remember(state.messageIds ?? [], { messageId, runNumber: active.runNumber, steered: true });
      recordSessionEvent(state, { type: 'message_taken', messageId, runNumber: active.runNumber, delivery: 'steered', whenBusy: 'steer' });
      // A run that ended already is no reason to fail: its end requeues what it did not see.
      getExternalWorkflowHandle(active.workflowId)
        .signal(interveneSignal, { kind: 'inject_message', role: 'user', content: message.content, messageId })
        .catch(() => undefined);
      return { runNumber: active.runNumber, workflowId: active.workflowId, messageId, status: 'running', delivery: 'steered' };
    }
    case 'end_active':
    case 'next': {
      const { active } = decision;
      const record = queueRun(state, sessionId, message.content, messageId, { plannerOptions: message.plannerOptions, at: nextPosition(active) });
      active.nextCount += 1;
      state.messageIds = remember(state.messageIds ?? [], { messageId, runNumber: record.runNumber });
      recordSessionEvent(state, { type: 'message_taken', messageId, runNumber: record.runNumber, delivery: 'next', whenBusy: message.whenBusy ?? state.whenBusy });
      if (decision.type === 'end_active') {
        active.ending = decision.how;
        recordSessionEvent(state, { type: 'run_ending', runNumber: active.runNumber, by: decision.how, messageId });
        getExternalWorkflowHandle(active.workflowId)
          .signal(killSignal, { reason: `${decision.how === 'rollback' ? 'rolled back' : 'interrupted'} by session message ${messageId}`, endedBy: { whenBusy: decision.how, messageId } })
          .catch(() => undefined);
      }
      return record;
    }
  }
}

/**
 * The end of the active run: what the session keeps of it (its state and its part of the
 * conversation, with the steered messages its planner saw), how its record ends, and the steered
 * messages it did not see, which run next (after the messages that ended it). `result` is
 * undefined when the run failed.
 */
export function endRun(state: Session, sessionId: string, active: ActiveRun, userMessage: Message, result: RunResult | undefined, record: SessionRunRecord | undefined): void {
  const end = afterRun(active, result);
  if (end.keep && result) {
    state.sessionState = result.sessionState;
    const steered: Message[] = end.delivered.map((s) => ({ role: 'user', content: s.content }));
    const answer: Message[] = result.final ? [{ role: 'assistant', content: result.final.text }] : [];
    state.history = [...state.history, userMessage, ...steered, ...answer].slice(-state.maxHistoryMessages);
  }
  const endedBy = active.ending === 'rollback' || (active.ending === 'interrupt' && result?.status === 'terminated') ? active.ending : undefined;
  if (record) {
    if (endedBy) record.endedBy = endedBy;
    if (end.delivered.length) record.steered = end.delivered.map((s) => s.messageId);
  }
  recordSessionEvent(state, { type: 'run_ended', runNumber: active.runNumber, status: result?.status ?? 'failed', ...(endedBy ? { endedBy } : {}) });
  for (const steer of end.delivered) recordSessionEvent(state, { type: 'steer_delivered', messageId: steer.messageId, runNumber: active.runNumber });
  let at = active.nextCount;
  for (const steer of end.requeued) {
    const runNumber = state.nextRunNumber;
    queueRun(state, sessionId, steer.content, steer.messageId, { plannerOptions: steer.plannerOptions, at: at++ });
    // Its id now names the run that will take it.
    state.messageIds = (state.messageIds ?? []).map((m) => (m.messageId === steer.messageId ? { messageId: m.messageId, runNumber } : m));
    recordSessionEvent(state, { type: 'steer_requeued', messageId: steer.messageId, fromRun: active.runNumber, runNumber });
  }
}
