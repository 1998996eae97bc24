import type { RunEvent } from '../../contracts';
import { eventResultMaxChars, resultInEvent } from '../../contracts/result-in-event';
import { isWellFormedText } from '../../contracts/safe-text';
import { ApprovalPause } from '../../server/live/approval-pause';

let seq = 0;
const ev = (e: Record<string, unknown>): RunEvent => ({ seq: ++seq, at: '2026-01-01T00:00:00.000Z', ...e }) as RunEvent;
const plan = (...calls: [string, string[]?][]) => ev({ type: 'plan', turn: 0, decision: 'tool_calls', toolCalls: calls.map(([id, dependsOn]) => ({ toolCallId: id, name: 't', ...(dependsOn ? { dependsOn } : {}) })) });
const requested = (id: string) => ev({ type: 'approval_requested', turn: 0, toolCallId: id, name: 't', args: {} });
const decided = (id: string) => ev({ type: 'approval_decided', toolCallId: id, decision: 'approve' });
const ended = (id: string) => ev({ type: 'tool_result', turn: 0, toolCallId: id, name: 't', status: 'ok', resultBytes: 2, durationMs: 1 });

describe('ApprovalPause: where a chat response ends', () => {
  it('waits once every planned call has ended or waits for its approval', () => {
    const pause = new ApprovalPause();
    for (const e of [plan(['a'], ['b'], ['c']), requested('a')]) pause.see(e);
    expect(pause.waitingForPeople).toBe(false);
    pause.see(ended('b'));
    pause.see(requested('c'));
    expect(pause.waitingForPeople).toBe(true);
    pause.see(decided('a'));
    expect(pause.waitingForPeople).toBe(false);
  });

  it('counts a call that depends on a waiting call as waiting too, and one whose inputs ended as going on', () => {
    const pause = new ApprovalPause();
    for (const e of [plan(['a'], ['b', ['a']], ['c', ['b']]), requested('a')]) pause.see(e);
    expect(pause.waitingForPeople).toBe(true);
    const other = new ApprovalPause();
    for (const e of [plan(['x'], ['y'], ['z', ['y']]), requested('x'), ended('y')]) other.see(e);
    expect(other.waitingForPeople).toBe(false);
  });

  it('does not wait on approvals the request answered, before the feed shows the decision', () => {
    const pause = new ApprovalPause(['a']);
    for (const e of [plan(['a'], ['b']), requested('a'), requested('b')]) pause.see(e);
    expect(pause.waitingForPeople).toBe(false);
    pause.see(ended('a'));
    expect(pause.waitingForPeople).toBe(true);
  });

  it('never waits without a pending approval, and starts over after a rewind', () => {
    const pause = new ApprovalPause();
    for (const e of [plan(['a']), ended('a')]) pause.see(e);
    expect(pause.waitingForPeople).toBe(false);
    for (const e of [plan(['b']), requested('b')]) pause.see(e);
    expect(pause.waitingForPeople).toBe(true);
    pause.reset();
    expect(pause.waitingForPeople).toBe(false);
  });
});

describe('resultInEvent: what a tool_result event shows of the result', () => {
  it('carries a short result whole, and cuts a long one to its first characters', () => {
    expect(resultInEvent({ text: 'hi' })).toEqual({ result: { text: 'hi' } });
    const long = resultInEvent({ text: 'x'.repeat(5_000) });
    expect(long).toEqual({ resultPreview: expect.any(String), resultCut: true });
    expect(long.resultPreview).toHaveLength(eventResultMaxChars);
    expect(resultInEvent(undefined)).toEqual({});
    expect(resultInEvent(undefined, '{"kept":false')).toEqual({ resultPreview: '{"kept":false' });
  });

  it('never cuts a character in two: a preview is well-formed text', () => {
    // '{"t":"a' is 7 characters: each emoji's pair then starts at an odd offset, and the cut
    // after 2,000 characters falls between the two halves of one.
    const preview = resultInEvent({ t: `${'a'}${'😀'.repeat(2_000)}` }).resultPreview ?? '';
    expect(isWellFormedText(preview)).toBe(true);
  });
});
