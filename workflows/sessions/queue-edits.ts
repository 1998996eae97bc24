/**
 * Operators' and users' changes to a session's queue, as plain functions (no Temporal import):
 * the editQueue validator asks {@link queueEditRefusal}, the handler {@link applyQueueEdit}.
 * Tests: test/unit/queue-edits.test.ts.
 */
import type { ParsedQueueEdit, ParsedSessionInput, SessionQueueView } from '../../contracts/session';
import { settle } from './message-ids';
import { recordSessionEvent } from './session-events';

type Session = Pick<ParsedSessionInput, 'queue' | 'runs' | 'messageIds' | 'events' | 'lastEventSeq'>;

/** Why the session refuses an edit (the message does not wait for its run), or undefined. */
export function queueEditRefusal(session: Session, sessionId: string, edit: ParsedQueueEdit): string | undefined {
  if (session.queue.some((m) => m.messageId === edit.messageId)) return undefined;
  const record = session.runs.find((r) => r.messageId === edit.messageId);
  const now = record ? `it is ${record.status} (run ${record.runNumber})` : 'the session has no such message';
  return `session ${sessionId}: message ${edit.messageId} does not wait in the queue: ${now}`;
}

/** The queue as the session shows it, next first. */
export function queueView(session: Pick<Session, 'queue'>): SessionQueueView {
  return session.queue.map((m) => ({ runNumber: m.runNumber, workflowId: m.workflowId, ...(m.messageId !== undefined ? { messageId: m.messageId } : {}), content: m.content }));
}

/**
 * Applies an edit the validator took ({@link queueEditRefusal} said nothing): the message's new
 * content or planner options, its drop (its run record ends `dropped`, and its id stays taken, so
 * a retry of it is not queued again), or its move to the front. Answers the queue as it is then.
 */
export function applyQueueEdit(session: Session, edit: ParsedQueueEdit): SessionQueueView {
  const at = session.queue.findIndex((m) => m.messageId === edit.messageId);
  if (at < 0) return queueView(session);
  const message = session.queue[at]!;
  switch (edit.action) {
    case 'edit':
      session.queue[at] = { ...message, ...(edit.content !== undefined ? { content: edit.content } : {}), ...(edit.plannerOptions !== undefined ? { plannerOptions: edit.plannerOptions } : {}) };
      break;
    case 'drop': {
      session.queue.splice(at, 1);
      const record = session.runs.find((r) => r.runNumber === message.runNumber);
      if (record) {
        record.status = 'dropped';
        if (edit.reason) record.error = `dropped: ${edit.reason}`;
      }
      session.messageIds = settle(session.messageIds ?? [], message.runNumber, 'dropped');
      break;
    }
    case 'front':
      session.queue.splice(at, 1);
      session.queue.unshift(message);
      break;
  }
  recordSessionEvent(session, { type: 'queue_edited', action: edit.action, messageId: edit.messageId, ...(edit.action === 'drop' && edit.reason ? { reason: edit.reason } : {}) });
  return queueView(session);
}
