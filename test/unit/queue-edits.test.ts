import { applyQueueEdit, queueEditRefusal, queueView } from '../../workflows/sessions/queue-edits';
import type { ParsedSessionInput } from '../../contracts/session';

type Session = Pick<ParsedSessionInput, 'queue' | 'runs' | 'messageIds'>;

function session(): Session {
  const ids = ['a', 'b', 'c'];
  return {
    queue: ids.map((id, i) => ({ runNumber: i + 2, workflowId: `session-s/run-${i + 2}`, content: `say ${id}`, messageId: id })),
    runs: [{ runNumber: 1, workflowId: 'session-s/run-1', messageId: 'first', status: 'running' }, ...ids.map((id, i) => ({ runNumber: i + 2, workflowId: `session-s/run-${i + 2}`, messageId: id, status: 'queued' as const }))],
    messageIds: [{ messageId: 'first', runNumber: 1 }, ...ids.map((id, i) => ({ messageId: id, runNumber: i + 2 }))],
  };
}

describe("a session's queue edits (workflows/sessions/queue-edits.ts)", () => {
  it('edit changes a waiting message, front moves it first, drop takes it off and ends its record dropped', () => {
    const s = session();
    expect(applyQueueEdit(s, { action: 'edit', messageId: 'b', content: 'say B' }).map((m) => m.content)).toEqual(['say a', 'say B', 'say c']);
    expect(applyQueueEdit(s, { action: 'front', messageId: 'c' }).map((m) => m.messageId)).toEqual(['c', 'a', 'b']);
    expect(applyQueueEdit(s, { action: 'drop', messageId: 'a', reason: 'not needed' }).map((m) => m.messageId)).toEqual(['c', 'b']);
    expect(s.runs.find((r) => r.messageId === 'a')).toMatchObject({ status: 'dropped', error: 'dropped: not needed' });
    // Its id stays taken: a retry of it is answered, not queued again.
    expect(s.messageIds?.find((m) => m.messageId === 'a')).toMatchObject({ status: 'dropped' });
    expect(queueView(s)).toHaveLength(2);
  });

  it('refuses an edit of a message that does not wait, saying what it is', () => {
    const s = session();
    expect(queueEditRefusal(s, 'session-s', { action: 'drop', messageId: 'b' })).toBeUndefined();
    expect(queueEditRefusal(s, 'session-s', { action: 'front', messageId: 'first' })).toBe('session session-s: message first does not wait in the queue: it is running (run 1)');
    expect(queueEditRefusal(s, 'session-s', { action: 'edit', messageId: 'nope', content: 'x' })).toBe('session session-s: message nope does not wait in the queue: the session has no such message');
  });
});
