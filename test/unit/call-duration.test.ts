import { callDuration } from '../../workflows/calls/call-duration';

describe('callDuration: what a call reports as its duration', () => {
  it('is the time from dispatch to recording when the tool ended just before', () => {
    expect(callDuration({ dispatchedMs: 1_000, recordedMs: 1_050, endedAtMs: 1_040 })).toEqual({ measuredMs: 50, workMs: 50 });
  });

  it('ends at the tool\'s end when the recording came a second or more later (a rewind\'s reset, no workflow worker)', () => {
    // A 32 ms call whose output a reset recorded again 28 s later.
    expect(callDuration({ dispatchedMs: 1_000, recordedMs: 29_455, endedAtMs: 1_032 })).toEqual({ measuredMs: 28_455, workMs: 32 });
  });

  it('is what was measured when the tool did not say when it ended', () => {
    expect(callDuration({ dispatchedMs: 1_000, recordedMs: 29_455 })).toEqual({ measuredMs: 28_455, workMs: 28_455 });
  });

  it('trusts the worker\'s clock no further than the measurement: never more, never below zero', () => {
    expect(callDuration({ dispatchedMs: 1_000, recordedMs: 5_000, endedAtMs: 500 })).toEqual({ measuredMs: 4_000, workMs: 0 });
    expect(callDuration({ dispatchedMs: 1_000, recordedMs: 5_000, endedAtMs: 9_000 })).toEqual({ measuredMs: 4_000, workMs: 4_000 });
  });
});
