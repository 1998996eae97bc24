import { messageIdSchema, sessionInputSchema, sessionMessageSchema, type RememberedMessage } from '../../contracts/session';
import { decideMessage, duplicateAnswer, maxRememberedMessageIds, remember, settle } from '../../workflows/sessions/message-ids';

const taken: RememberedMessage[] = [
  { messageId: 'order-42', runNumber: 1, status: 'completed' },
  { messageId: 'm-2', runNumber: 2 },
];

describe('decideMessage', () => {
  it('a new client id is a new run under that id', () => {
    expect(decideMessage(taken, 'order-43', 3)).toEqual({ type: 'new', messageId: 'order-43' });
  });

  it('an id the session took is a duplicate of the run that took it', () => {
    expect(decideMessage(taken, 'order-42', 3)).toEqual({ type: 'duplicate', taken: taken[0] });
  });

  it('a message without an id gets the session’s own, m-<runNumber>', () => {
    expect(decideMessage(taken, undefined, 3)).toEqual({ type: 'new', messageId: 'm-3' });
  });

  it('the session’s own id does not take one a client gave already', () => {
    const clientTook: RememberedMessage[] = [{ messageId: 'm-3', runNumber: 1 }, { messageId: 'm-3-2', runNumber: 2 }];
    expect(decideMessage(clientTook, undefined, 3)).toEqual({ type: 'new', messageId: 'm-3-3' });
  });

  it('an id given back by a client after the session gave it is a duplicate', () => {
    expect(decideMessage(taken, 'm-2', 3)).toEqual({ type: 'duplicate', taken: taken[1] });
  });
});

describe('remember and settle', () => {
  it('keeps the newest ids, at most maxRememberedMessageIds', () => {
    let ids: RememberedMessage[] = [];
    for (let n = 1; n <= maxRememberedMessageIds + 5; n++) ids = remember(ids, { messageId: `id-${n}`, runNumber: n });
    expect(ids).toHaveLength(maxRememberedMessageIds);
    expect(ids[0]?.messageId).toBe('id-6');
    expect(decideMessage(ids, 'id-5', 2000).type).toBe('new');
    expect(decideMessage(ids, 'id-6', 2000).type).toBe('duplicate');
  });

  it('records the final status of a run beside its id', () => {
    expect(settle(taken, 2, 'failed')[1]).toEqual({ messageId: 'm-2', runNumber: 2, status: 'failed' });
    expect(settle(taken, 9, 'failed')).toEqual(taken);
  });
});

describe('duplicateAnswer', () => {
  it('answers the carried record of the run', () => {
    const record = { runNumber: 1, workflowId: 'session-s/run-1', messageId: 'order-42', status: 'completed' as const, final: 'done' };
    expect(duplicateAnswer([record], taken[0] as RememberedMessage, 'session-s/run-1')).toBe(record);
  });

  it('answers a steered message as its first answer did: its own id, steered into the run it went into (not the id of the message that started that run)', () => {
    const record = { runNumber: 1, workflowId: 'session-s/run-1', messageId: 'm-1', status: 'running' as const };
    const steered: RememberedMessage = { messageId: 'steer-1', runNumber: 1, steered: true };
    expect(duplicateAnswer([record], steered, 'session-s/run-1')).toEqual({ runNumber: 1, workflowId: 'session-s/run-1', messageId: 'steer-1', status: 'running', delivery: 'steered' });
    expect(duplicateAnswer([], { ...steered, status: 'completed' }, 'session-s/run-1')).toEqual({ runNumber: 1, workflowId: 'session-s/run-1', messageId: 'steer-1', status: 'completed', delivery: 'steered' });
  });

  it('answers what the session remembers once the record is no longer carried', () => {
    expect(duplicateAnswer([], taken[0] as RememberedMessage, 'session-s/run-1')).toEqual({ runNumber: 1, workflowId: 'session-s/run-1', messageId: 'order-42', status: 'completed' });
  });
});

describe('message ids in the contracts', () => {
  it.each([
    ['empty', ''],
    ['too long', 'x'.repeat(129)],
    ['with a space', 'two words'],
    ['with a control character', 'a\u0000b'],
    ['not ASCII', 'caf\u00e9'],
  ])('refuses an id %s', (_, id) => {
    expect(messageIdSchema().safeParse(id).success).toBe(false);
    const issue = sessionMessageSchema().safeParse({ content: 'hi', messageId: id }).error?.issues[0];
    expect(issue?.path).toEqual(['messageId']);
  });

  it('takes a UUID, a delivery id and the longest id', () => {
    for (const id of ['0b8e5f3e-7a2c-4a51-9a4f-2d7c1f0e9b11', 'evt_1NqK2a:retry#1', 'x'.repeat(128)]) expect(messageIdSchema().parse(id)).toBe(id);
  });

  it('a session input carried before message ids loads without them', () => {
    const carried = sessionInputSchema().parse({ schemaVersion: 1, agent: 'a', runs: [{ runNumber: 1, workflowId: 'session-s/run-1', status: 'completed' }], nextRunNumber: 2 });
    expect(carried.messageIds).toBeUndefined();
    expect(carried.runs[0]?.messageId).toBeUndefined();
  });
});
