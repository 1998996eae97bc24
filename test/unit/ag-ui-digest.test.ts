import { approvalDigest } from '../../contracts/approval-digest';
import { resumeDigest, shownCallDigests } from '../../server/live/ag-ui-digest';

const assistant = (calls: { id: string; name: string; arguments: string }[]) => ({
  id: 'm1',
  role: 'assistant',
  toolCalls: calls.map(({ id, name, arguments: text }) => ({ id, type: 'function', function: { name, arguments: text } })),
});

describe('shownCallDigests', () => {
  it('digests each tool call of the assistant messages as the client shows it', () => {
    const shown = shownCallDigests([{ id: 'u', role: 'user', content: 'hi' }, assistant([{ id: 'pay', name: 'echo', arguments: '{"text":"ten"}' }])]);
    expect([...shown]).toEqual([['pay', approvalDigest('echo', { text: 'ten' })]]);
  });

  it('takes the last call under an id: a session thread shows runs whose call ids repeat, the newest last', () => {
    const older = assistant([{ id: 'call_0_0', name: 'echo', arguments: '{"text":"run 1"}' }]);
    const newer = { ...assistant([{ id: 'call_0_0', name: 'echo', arguments: '{"text":"run 2"}' }]), id: 'm2' };
    expect(shownCallDigests([older, newer]).get('call_0_0')).toBe(approvalDigest('echo', { text: 'run 2' }));
  });

  it('leaves out calls whose arguments are not JSON (still streaming, or cut)', () => {
    expect(shownCallDigests([assistant([{ id: 'pay', name: 'echo', arguments: '{"text":' }])]).size).toBe(0);
  });

  it('reads nothing from messages that are not assistant messages with tool calls', () => {
    expect(shownCallDigests([null, 'x', { role: 'assistant', toolCalls: 'no' }, { role: 'tool', toolCalls: [] }]).size).toBe(0);
  });
});

describe('resumeDigest', () => {
  const shown = new Map([['pay', 'sha256:shown']]);

  it('binds an entry to the call its messages show', () => {
    expect(resumeDigest({ interruptId: 'pay' }, shown)).toBe('sha256:shown');
  });

  it("takes the interrupt's digest the entry echoes in its metadata first", () => {
    expect(resumeDigest({ interruptId: 'pay', metadata: { digest: 'sha256:echoed' } }, shown)).toBe('sha256:echoed');
  });

  it("leaves a payload's own digest to the payload", () => {
    expect(resumeDigest({ interruptId: 'pay', payload: { decision: 'approve', digest: 'sha256:own' } }, shown)).toBeUndefined();
  });

  it('binds to nothing when the client shows no such call', () => {
    expect(resumeDigest({ interruptId: 'other' }, shown)).toBeUndefined();
  });
});
