import { ScheduleOverlapPolicy } from '@temporalio/client';
import { cronProblem } from '../../client/cron-check';
import {
  checkScheduleName,
  defaultCatchupWindowMs,
  durationMs,
  isSameSpec,
  parseScheduleSpec,
  sessionScheduleId,
  sessionScheduleOptions,
  skipCatchupWindowMs,
} from '../../client/session-schedule-spec';

const now = Date.parse('2030-01-01T00:00:00Z');
const target = { sessionId: 'shop-42', sessionWorkflowId: 'session-shop-42', taskQueue: 'notes' };
const message = { content: 'Summarise my watchlist' };
const invalid = (spec: unknown) => {
  try {
    parseScheduleSpec(spec, now);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the spec was accepted');
};

describe('schedule ids and names', () => {
  it('derives the schedule id from the session workflow id and the name', () => {
    expect(sessionScheduleId('session-shop-42', 'daily')).toBe('session-shop-42/schedule-daily');
  });

  it('refuses a name with a slash or spaces, naming it', () => {
    expect(() => checkScheduleName('a/b')).toThrow(/invalid schedule name "a\/b"/);
    expect(() => checkScheduleName('two words')).toThrow(/invalid schedule name/);
    expect(checkScheduleName('morning-report.v2')).toBe('morning-report.v2');
  });
});

describe('durations', () => {
  it('reads milliseconds and compound unit strings', () => {
    expect(durationMs(1500)).toBe(1500);
    expect(durationMs('1s')).toBe(1000);
    expect(durationMs('1h30m')).toBe(5_400_000);
    expect(durationMs('1d')).toBe(86_400_000);
  });

  it('refuses other text and negative numbers', () => {
    expect(durationMs('1 hour')).toBeUndefined();
    expect(durationMs('h')).toBeUndefined();
    expect(durationMs(-1)).toBeUndefined();
  });
});

describe('cron expressions', () => {
  it('takes five fields with lists, ranges, steps and names, and descriptors', () => {
    expect(cronProblem('0 9 * * *')).toBeUndefined();
    expect(cronProblem('*/15 8-18 ? JAN-MAR MON,WED,FRI')).toBeUndefined();
    expect(cronProblem('@daily')).toBeUndefined();
  });

  it('names the field that is out of range', () => {
    expect(cronProblem('0 25 * * *')).toBe("hour field '25' is out of range 0-23");
    expect(cronProblem('0 9 32 * *')).toBe("day-of-month field '32' is out of range 1-31");
  });

  it('names a bad step, a bad name and a wrong number of fields', () => {
    expect(cronProblem('*/0 * * * *')).toMatch(/^minute field '\*\/0' has step '0'/);
    expect(cronProblem('0 9 * FOO *')).toMatch(/^month field 'FOO' is not a number or JAN-DEC/);
    expect(cronProblem('0 9 * *')).toMatch(/^has 4 fields; a cron expression has 5/);
    expect(cronProblem('@sometimes')).toMatch(/is not one of @yearly/);
  });
});

describe('spec validation', () => {
  it('asks for exactly one of cron, every and at', () => {
    expect(invalid({ message })).toMatch(/cron: give one of cron, every or at/);
    expect(invalid({ message, cron: '0 9 * * *', every: '1h' })).toMatch(/every: give one of cron, every or at, not cron and every/);
  });

  it('names the bad cron field', () => {
    expect(invalid({ message, cron: '0 25 * * *' })).toBe("invalid schedule: cron: hour field '25' is out of range 0-23");
  });

  it('refuses an interval under a second, an offset not shorter than it, and an offset without it', () => {
    expect(invalid({ message, every: '500ms' })).toMatch(/every: at least 1000 ms/);
    expect(invalid({ message, every: '1h', offset: '1h' })).toMatch(/offset: must be shorter than every/);
    expect(invalid({ message, cron: '@daily', offset: '1h' })).toMatch(/offset: offset goes with every/);
  });

  it('refuses an at in the past or without an offset', () => {
    expect(invalid({ message, at: '2029-12-31T23:59:59Z' })).toMatch(/at: 2029-12-31T23:59:59Z is in the past/);
    expect(invalid({ message, at: '2030-01-02T09:00:00' })).toMatch(/^invalid schedule: at:/);
  });

  it('refuses a bad time zone, a window under 10s, a bad whenBusy, an empty message and unknown fields', () => {
    expect(invalid({ message, cron: '@daily', timezone: 'Mars/Olympus' })).toMatch(/timezone: "Mars\/Olympus" is not an IANA time zone/);
    expect(invalid({ message, every: '1m', catchupWindow: '5s' })).toMatch(/catchupWindow: at least 10000 ms/);
    expect(invalid({ message: { ...message, whenBusy: 'later' }, every: '1m' })).toMatch(/message\.whenBusy/);
    expect(invalid({ message: { content: '' }, every: '1m' })).toMatch(/message\.content: the message must not be empty/);
    expect(invalid({ message, every: '1m', evry: '1m' })).toMatch(/evry/);
  });
});

describe('spec → Temporal schedule', () => {
  it('a cron starts the deliverer on the session task queue, BUFFER_ONE, default catch-up window, the spec in the memo', () => {
    const spec = parseScheduleSpec({ message, cron: '0 9 * * *', timezone: 'Europe/Berlin' }, now);
    const options = sessionScheduleOptions(target, 'daily', spec);
    expect(options).toMatchObject({
      scheduleId: 'session-shop-42/schedule-daily',
      spec: { cronExpressions: ['0 9 * * *'], timezone: 'Europe/Berlin' },
      action: {
        type: 'startWorkflow',
        workflowType: 'agentScheduledMessage',
        workflowId: 'session-shop-42/schedule-daily',
        taskQueue: 'notes',
        args: [{ sessionWorkflowId: 'session-shop-42', scheduleId: 'session-shop-42/schedule-daily', message }],
      },
      policies: { overlap: ScheduleOverlapPolicy.BUFFER_ONE, catchupWindow: defaultCatchupWindowMs },
      state: {},
      memo: { durableAgentsSchedule: { sessionId: 'shop-42', name: 'daily', spec } },
    });
  });

  it('an interval with offset, a firing limit, skip of missed firings, paused, and whenBusy passed on', () => {
    const spec = parseScheduleSpec({ message: { ...message, whenBusy: 'enqueue' }, every: '1d', offset: '9h', remainingActions: 3, catchupWindow: 'skip', paused: true, note: 'holiday' }, now);
    const options = sessionScheduleOptions(target, 'daily', spec);
    expect(options.spec).toEqual({ intervals: [{ every: 86_400_000, offset: 32_400_000 }] });
    expect(options.policies?.catchupWindow).toBe(skipCatchupWindowMs);
    expect(options.state).toEqual({ paused: true, note: 'holiday', remainingActions: 3 });
    expect(options.action.args?.[0]).toMatchObject({ message: { whenBusy: 'enqueue' } });
  });

  it('a one-time at is the calendar second of it in UTC, with one action left', () => {
    const spec = parseScheduleSpec({ message, at: '2030-01-02T10:30:15+01:00' }, now);
    const options = sessionScheduleOptions(target, 'once', spec);
    expect(options.spec).toEqual({ calendars: [{ year: 2030, month: 'JANUARY', dayOfMonth: 2, hour: 9, minute: 30, second: 15, comment: 'once, at 2030-01-02T10:30:15+01:00' }] });
    expect(options.state).toEqual({ remainingActions: 1 });
  });

  it('tells a repeated spec (in any key order) from another', () => {
    const a = parseScheduleSpec({ message, every: '1h', remainingActions: 2 }, now);
    const b = parseScheduleSpec({ remainingActions: 2, every: '1h', message: { content: message.content } }, now);
    const c = parseScheduleSpec({ message, every: '2h', remainingActions: 2 }, now);
    expect(isSameSpec(a, b)).toBe(true);
    expect(isSameSpec(a, c)).toBe(false);
  });
});
