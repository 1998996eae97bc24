import { decideSafePoint, isPending, pauseHold } from '../../workflows/state/safe-point';

describe('safe points', () => {
  it('a safe point that does not wait returns its value, not a promise', () => {
    expect(isPending(undefined)).toBe(false);
    expect(isPending({ type: 'block', reason: 'x' })).toBe(false);
    expect(isPending(Promise.resolve(undefined))).toBe(true);
  });

  it('the first branch to reach a safe point during a pause marks the run paused there; later ones wait beside it', () => {
    expect(pauseHold({ isPauseRequested: false, isPaused: false })).toBe('go');
    expect(pauseHold({ isPauseRequested: true, isPaused: false })).toBe('pause_here');
    expect(pauseHold({ isPauseRequested: true, isPaused: true })).toBe('wait');
  });

  describe('decideSafePoint: what a safe point does, from what reached it', () => {
    const none = { hookAction: undefined, breakpointHit: false, pauseRequested: false };

    it('goes on when nothing asks to pause; at before_llm it applies queued conversation edits', () => {
      expect(decideSafePoint('before_tool', none)).toEqual({ hold: false, editsConversation: false });
      expect(decideSafePoint('before_llm', none)).toEqual({ hold: false, editsConversation: true });
    });

    it("a hook's pause is requested with its reason, before a breakpoint's, and the point holds", () => {
      expect(decideSafePoint('after_tool', { ...none, hookAction: { type: 'pause', reason: 'look first' }, breakpointHit: true })).toEqual({ pause: 'look first', hold: true, editsConversation: false });
    });

    it('a breakpoint requests a pause naming its point and tool', () => {
      expect(decideSafePoint('before_tool', { ...none, breakpointHit: true, tool: 'pay' })).toEqual({ pause: 'breakpoint at before_tool (pay)', hold: true, editsConversation: false });
    });

    it('a pause requested before holds the point without a second request', () => {
      expect(decideSafePoint('before_llm', { ...none, breakpointHit: true, pauseRequested: true })).toEqual({ hold: true, editsConversation: true });
      expect(decideSafePoint('task_boundary', { ...none, pauseRequested: true })).toEqual({ hold: true, editsConversation: false });
    });

    it("a hook's other actions do not pause", () => {
      expect(decideSafePoint('before_tool', { ...none, hookAction: { type: 'block', reason: 'no' } })).toEqual({ hold: false, editsConversation: false });
    });
  });
});
