/**
 * What a session chat's response shows (the AI SDK chat over a session, session-chat.ts), as
 * plain functions of the session's answers: which run follows a user message and from where, which
 * run a resumed chat follows, and when a refusal is the session being busy. Tests:
 * test/unit/session-chat-plan.test.ts.
 */
import type { RunEvent } from '../../contracts';
import type { BusyPolicy, SessionReport, SessionRunRecord } from '../../contracts/session';

/** The run a chat response follows for a message, and from where. */
export type SessionChatFollow =
  /**
   * The message has a run of its own: queued at the back (`queued`: `enqueue`, or no run was
   * active) or to run next, after the run it ends or that ends (`next`: `interrupt`, `rollback`, a
   * steer the active run cannot take). The response shows that run from its start, once it starts.
   */
  | { readonly type: 'run'; readonly workflowId: string; readonly runNumber: number; readonly delivery: 'queued' | 'next' }
  /**
   * The message was steered into the active run: the response shows that run from the event that
   * says its planner has the message. If the run ends without taking it, the message runs as a run
   * of its own ({@link requeuedRun}) and the response goes on with that one.
   */
  | { readonly type: 'steered'; readonly workflowId: string; readonly runNumber: number }
  /** The message was taken off the queue before it ran (editQueue): there is nothing to show. */
  | { readonly type: 'dropped'; readonly workflowId: string; readonly runNumber: number };

/**
 * What the response to message `messageId` follows, from the record `sendMessage` answered. A
 * retried message (the same id) gets the record of the run that took it: its own run (shown from
 * its start again), or the run it was steered into, whose own message has another id.
 */
export function followOf(record: SessionRunRecord, messageId: string): SessionChatFollow {
  const { workflowId, runNumber } = record;
  if (record.delivery === 'steered' || (record.messageId !== undefined && record.messageId !== messageId)) return { type: 'steered', workflowId, runNumber };
  if (record.status === 'dropped') return { type: 'dropped', workflowId, runNumber };
  return { type: 'run', workflowId, runNumber, delivery: record.delivery === 'next' ? 'next' : 'queued' };
}

/** Whether `event` is the one that shows the run's planner took the steered message `messageId`. */
export function isSteerOf(event: RunEvent, messageId: string): boolean {
  return event.type === 'intervention_applied' && event.messageId === messageId;
}

/**
 * Whether `event` shows another message steered into the run than `messageId`: the response that
 * answers `messageId` ends there, and that message's response goes on with the run.
 */
export function isOtherSteer(event: RunEvent, messageId: string | undefined): boolean {
  return event.type === 'intervention_applied' && event.messageId !== undefined && event.messageId !== messageId;
}

/** The run a steered message got because the run it was steered into ended first, once the session queued it. */
export function requeuedRun(runs: readonly SessionRunRecord[], messageId: string): SessionRunRecord | undefined {
  return runs.find((r) => r.messageId === messageId && r.delivery === 'next');
}

/**
 * The run a resumed chat follows: the one that runs, else the next queued; none when the session
 * is idle (the transport's resume is then answered 204, "no active response").
 */
export function resumeTarget(report: Pick<SessionReport, 'runs'>): SessionRunRecord | undefined {
  return report.runs.find((r) => r.status === 'running') ?? report.runs.find((r) => r.status === 'queued');
}

/**
 * The run a refused message was refused for, when the refusal is `whenBusy: reject` (the
 * message's own policy, else the session's): the run the session is busy with. Undefined for a
 * refusal of another kind (a closed session, another agent).
 */
export function busyWith(report: Pick<SessionReport, 'runs' | 'whenBusy' | 'open'>, requested: BusyPolicy | undefined): SessionRunRecord | undefined {
  if ((requested ?? report.whenBusy ?? 'enqueue') !== 'reject' || !report.open) return undefined;
  return report.runs.find((r) => r.status === 'running');
}

/** The id of the assistant message that answers user message `messageId`: the same for a retry. */
export function answerMessageId(messageId: string): string {
  return `answer-${messageId}`;
}
