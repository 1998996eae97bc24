import { isPending, pauseHold } from '../../workflows/state/safe-point';

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
});
