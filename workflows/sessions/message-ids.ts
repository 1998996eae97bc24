import type { RememberedMessage, SessionRunRecord } from '../../contracts/session';

/**
 * How many message ids a session remembers (its last messages', carried across continue-as-new):
 * a message whose id is among them is not queued again. A retry of an older message is a new
 * message. The most a session carries for them is about 185 KB (1,000 ids of 128 characters; 95 KB
 * for UUIDs), in the input of each continue-as-new.
 */
export const maxRememberedMessageIds = 1000;

/** What becomes of a message: a new run under `messageId`, or the run that took its id already. */
export type MessageDecision = { readonly type: 'new'; readonly messageId: string } | { readonly type: 'duplicate'; readonly taken: RememberedMessage };

/** The session's own id of an id-less message: `m-<runNumber>`, or with a suffix when a client took that. */
function ownId(remembered: readonly RememberedMessage[], runNumber: number): string {
  const taken = (id: string) => remembered.some((m) => m.messageId === id);
  let id = `m-${runNumber}`;
  for (let k = 2; taken(id); k++) id = `m-${runNumber}-${k}`;
  return id;
}

/**
 * Decides a message: a client's id the session remembers is a duplicate of the run that took it;
 * any other id, or none (then the session's own, see {@link ownId}), is a new run numbered
 * `runNumber`. Pure: the sendMessage handler and its validator both ask it.
 */
export function decideMessage(remembered: readonly RememberedMessage[], given: string | undefined, runNumber: number): MessageDecision {
  if (given === undefined) return { type: 'new', messageId: ownId(remembered, runNumber) };
  const taken = remembered.find((m) => m.messageId === given);
  return taken ? { type: 'duplicate', taken } : { type: 'new', messageId: given };
}

/** The ids after one more message: the newest last, the oldest dropped beyond {@link maxRememberedMessageIds}. */
export function remember(remembered: readonly RememberedMessage[], message: RememberedMessage): RememberedMessage[] {
  return [...remembered, message].slice(-maxRememberedMessageIds);
}

/** Records the final status of run `runNumber` beside its message id (a no-op when it is forgotten). */
export function settle(remembered: readonly RememberedMessage[], runNumber: number, status: SessionRunRecord['status']): RememberedMessage[] {
  return remembered.map((m) => (m.runNumber === runNumber ? { ...m, status } : m));
}

/**
 * What a duplicate answers, as the message's first answer did: the record of the run that took its
 * id while the session carries it (the last 50 runs), else one made of what the session remembers
 * of it. A message steered into a run answers that run under its own id, with `delivery: steered`.
 */
export function duplicateAnswer(runs: readonly SessionRunRecord[], taken: RememberedMessage, workflowId: string): SessionRunRecord {
  const record = runs.find((r) => r.runNumber === taken.runNumber);
  if (record && !taken.steered) return record;
  const status = record?.status ?? taken.status ?? 'queued';
  return { runNumber: taken.runNumber, workflowId: record?.workflowId ?? workflowId, messageId: taken.messageId, status, ...(taken.steered ? { delivery: 'steered' as const } : {}) };
}
