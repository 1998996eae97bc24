import { formatDuration } from '../../dashboard/durations';

/** How the dashboard writes a duration (budgets, tool calls, waits, run ages). */
describe('formatDuration', () => {
  it('writes each unit as the one above it once it rounds up to it', () => {
    // A child's time budget is what its parent had left: a minute less a few ms read "29 min 60 s".
    expect(formatDuration(1_799_999)).toBe('30 min 0 s');
    expect(formatDuration(59_999)).toBe('1 min 0 s');
    expect(formatDuration(9_999)).toBe('10 s');
    expect(formatDuration(999.7)).toBe('1.0 s');
    expect(formatDuration(3_599_999)).toBe('1 h 0 min');
  });

  it('writes milliseconds, tenths of seconds under ten seconds, seconds, minutes and seconds, hours and minutes', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(4_200)).toBe('4.2 s');
    expect(formatDuration(42_400)).toBe('42 s');
    expect(formatDuration(185_000)).toBe('3 min 5 s');
    expect(formatDuration(7_800_000)).toBe('2 h 10 min');
  });
});
