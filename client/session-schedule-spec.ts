import { z } from 'zod';
import { ScheduleOverlapPolicy, type ScheduleOptions, type ScheduleOptionsStartWorkflowAction, type Workflow } from '@temporalio/client';
import { scheduledMessageSchema, scheduledMessageWorkflowType, type ScheduledMessageInput } from '../contracts/session-schedule';
import { describeIssues } from '../contracts/json';
import { canonicalJson } from '../contracts/canonical-json';
import { cronProblem } from './cron-check';
import { AgentClientError } from './errors';

/*
 * The pure part of sessions' schedules: what a spec may say, the schedule id, and the Temporal
 * schedule a spec becomes. client/session-schedules.ts drives Temporal with it.
 */

/** Shortest interval between firings. */
export const minScheduleIntervalMs = 1000;
/** Temporal's shortest catch-up window: what `catchupWindow: 'skip'` sets. */
export const skipCatchupWindowMs = 10_000;
/** Catch-up window when the spec gives none: a firing missed while the server was down is still posted up to an hour late. */
export const defaultCatchupWindowMs = 3_600_000;

const durationUnits: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const durationPattern = /^(\d+(ms|s|m|h|d))+$/;

/**
 * Milliseconds of a duration: a number of milliseconds, or a string of parts such as `30s`,
 * `15m`, `1h30m`, `1d` (units ms, s, m, h, d). Undefined when it is neither.
 */
export function durationMs(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  const text = value.trim();
  if (!durationPattern.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)(ms|s|m|h|d)/g)) total += Number(amount) * (durationUnits[unit as string] ?? 0);
  return Number.isSafeInteger(total) ? total : undefined;
}

const durationSchema = z.union([z.number(), z.string()]).superRefine((value, ctx) => {
  if (durationMs(value) === undefined) ctx.addIssue({ code: 'custom', message: `${JSON.stringify(value)} is not a duration: give milliseconds or a string such as '30s', '15m', '1h30m', '1d'` });
});

/** A schedule's name within its session: letters, digits, `_ . -`, up to 64 characters. */
export const scheduleNamePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function timezoneProblem(zone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return undefined;
  } catch {
    return `${JSON.stringify(zone)} is not an IANA time zone (e.g. 'Europe/Berlin', 'UTC')`;
  }
}

/** The fields of a schedule's spec, without the checks across them ({@link checkScheduleSpec}). */
export const scheduleSpecFields = {
  /** The message each firing posts into the session. */
  message: scheduledMessageSchema(),
  /** A five-field cron expression (`0 9 * * *`: every day at 09:00) or a descriptor (`@daily`). */
  cron: z.string().optional(),
  /** The IANA time zone of `cron` (default UTC). */
  timezone: z.string().optional(),
  /** An interval: fire every this long (at least 1s), counted from the Unix epoch plus `offset`. */
  every: durationSchema.optional(),
  /** With `every`: how far into each interval to fire (e.g. every 1d, offset 9h: daily at 09:00 UTC). */
  offset: durationSchema.optional(),
  /** Once, at this ISO 8601 time with its offset (`2030-01-01T09:00:00Z`); the schedule then stays, spent, until deleted. */
  at: z.string().datetime({ offset: true }).optional(),
  /**
   * Missed firings (the Temporal server was down at their time): posted when it is back if they
   * are at most this late (default 1h), or `'skip'` to drop them (Temporal's shortest window, 10s).
   */
  catchupWindow: z.union([z.literal('skip'), durationSchema]).optional(),
  /** At most this many firings; the schedule then stays, spent, until deleted (a manual trigger still fires). */
  remainingActions: z.number().int().positive().optional(),
  /** Create the schedule paused. */
  paused: z.boolean().optional(),
  /** A note shown by `describe` and `temporal schedule describe`, e.g. why it is paused. */
  note: z.string().max(1000).optional(),
};

type SpecFields = z.infer<z.ZodObject<typeof scheduleSpecFields>>;

/** The checks across a spec's fields (one of cron, every, at; the cron's fields; durations; the time zone), as zod issues on the field. */
export function checkScheduleSpec(spec: SpecFields, ctx: z.RefinementCtx): void {
  const given = (['cron', 'every', 'at'] as const).filter((key) => spec[key] !== undefined);
  if (given.length !== 1) {
    ctx.addIssue({ code: 'custom', path: given.length ? [given[1] as string] : ['cron'], message: given.length ? `give one of cron, every or at, not ${given.join(' and ')}` : 'give one of cron, every or at' });
  }
  if (spec.cron !== undefined) {
    const problem = cronProblem(spec.cron);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['cron'], message: problem });
  }
  if (spec.timezone !== undefined) {
    if (spec.cron === undefined) ctx.addIssue({ code: 'custom', path: ['timezone'], message: 'timezone goes with cron (every counts from the epoch, at carries its offset)' });
    const problem = timezoneProblem(spec.timezone);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['timezone'], message: problem });
  }
  const every = spec.every !== undefined ? durationMs(spec.every) : undefined;
  if (every !== undefined && every < minScheduleIntervalMs) ctx.addIssue({ code: 'custom', path: ['every'], message: `at least ${minScheduleIntervalMs} ms (1s)` });
  if (spec.offset !== undefined) {
    const offset = durationMs(spec.offset);
    if (spec.every === undefined) ctx.addIssue({ code: 'custom', path: ['offset'], message: 'offset goes with every' });
    else if (offset !== undefined && every !== undefined && offset >= every) ctx.addIssue({ code: 'custom', path: ['offset'], message: `must be shorter than every (${every} ms)` });
  }
  if (spec.catchupWindow !== undefined && spec.catchupWindow !== 'skip') {
    const window = durationMs(spec.catchupWindow);
    if (window !== undefined && window < skipCatchupWindowMs) ctx.addIssue({ code: 'custom', path: ['catchupWindow'], message: `at least ${skipCatchupWindowMs} ms (10s, Temporal's shortest); use 'skip' for that` });
  }
}

/**
 * When a session's schedule fires and what it posts: exactly one of `cron`, `every` or `at`.
 * See docs/human-in-the-loop.md, "Messages on a schedule".
 */
export const sessionScheduleSpecSchema = z.object(scheduleSpecFields).strict().superRefine(checkScheduleSpec);
export type SessionScheduleSpec = z.input<typeof sessionScheduleSpecSchema>;
export type ParsedSessionScheduleSpec = z.output<typeof sessionScheduleSpecSchema>;

/**
 * The schedule id of the session's schedule `name`: `<session workflow id>/schedule-<name>`, so a
 * schedule is found by its name and creating it twice reaches the same schedule.
 */
export function sessionScheduleId(sessionWorkflowId: string, name: string): string {
  return `${sessionWorkflowId}/schedule-${name}`;
}

/**
 * The name, checked.
 *
 * @throws AgentClientError `invalid_input` naming the bad name.
 */
export function checkScheduleName(name: string): string {
  if (!scheduleNamePattern.test(name)) {
    throw new AgentClientError('invalid_input', `invalid schedule name ${JSON.stringify(name.slice(0, 100))}: use letters, digits, _ . - (at most 64, starting with a letter or digit)`);
  }
  return name;
}

/**
 * The spec, parsed; `at` must lie after `nowMs`.
 *
 * @throws AgentClientError `invalid_input` naming the bad field (`cron: hour field '25' is out of range 0-23`).
 */
export function parseScheduleSpec(spec: unknown, nowMs: number): ParsedSessionScheduleSpec {
  const parsed = sessionScheduleSpecSchema.safeParse(spec);
  if (!parsed.success) throw new AgentClientError('invalid_input', `invalid schedule: ${describeIssues(parsed.error)}`);
  if (parsed.data.at !== undefined && Date.parse(parsed.data.at) <= nowMs) {
    throw new AgentClientError('invalid_input', `invalid schedule: at: ${parsed.data.at} is in the past`);
  }
  return parsed.data;
}

/** What a schedule carries in its memo: whose it is, and the spec it was created from (to tell a repeated create from a conflicting one). */
export interface SessionScheduleMemo {
  readonly sessionId: string;
  readonly name: string;
  readonly spec: ParsedSessionScheduleSpec;
}

/** Key of {@link SessionScheduleMemo} in a schedule's memo. */
export const scheduleMemoKey = 'durableAgentsSchedule';

const monthNames = ['JANUARY', 'FEBRUARY', 'MARCH', 'APRIL', 'MAY', 'JUNE', 'JULY', 'AUGUST', 'SEPTEMBER', 'OCTOBER', 'NOVEMBER', 'DECEMBER'] as const;

/** When the schedule fires, as Temporal's ScheduleSpec. */
function timesOf(spec: ParsedSessionScheduleSpec): ScheduleOptions['spec'] {
  if (spec.cron !== undefined) return { cronExpressions: [spec.cron.trim()], ...(spec.timezone !== undefined ? { timezone: spec.timezone } : {}) };
  if (spec.every !== undefined) {
    const every = durationMs(spec.every) as number;
    const offset = spec.offset !== undefined ? durationMs(spec.offset) : undefined;
    return { intervals: [{ every, ...(offset ? { offset } : {}) }] };
  }
  // One time: the calendar second of `at`, in UTC (Temporal's default zone).
  const at = new Date(spec.at as string);
  return {
    calendars: [
      {
        year: at.getUTCFullYear(),
        month: monthNames[at.getUTCMonth()],
        dayOfMonth: at.getUTCDate(),
        hour: at.getUTCHours(),
        minute: at.getUTCMinutes(),
        second: at.getUTCSeconds(),
        comment: `once, at ${spec.at}`,
      },
    ],
  };
}

/**
 * The Temporal schedule of a session's schedule: its action starts the deliverer workflow
 * (`agentScheduledMessage`) on the session's task queue. Overlap BUFFER_ONE: firings never run
 * side by side (so messages arrive in firing order), and while one is still delivering (the
 * session's workers down) one more waits; firings beyond that are skipped and counted, as missed
 * ones are, so a schedule never floods a session with a backlog.
 */
export function sessionScheduleOptions(target: { readonly sessionId: string; readonly sessionWorkflowId: string; readonly taskQueue: string }, name: string, spec: ParsedSessionScheduleSpec): ScheduleOptions<ScheduleOptionsStartWorkflowAction<Workflow>> {
  const scheduleId = sessionScheduleId(target.sessionWorkflowId, name);
  const input: ScheduledMessageInput = { sessionWorkflowId: target.sessionWorkflowId, scheduleId, message: spec.message };
  const catchupWindow = spec.catchupWindow === undefined ? defaultCatchupWindowMs : spec.catchupWindow === 'skip' ? skipCatchupWindowMs : (durationMs(spec.catchupWindow) as number);
  const memo: SessionScheduleMemo = { sessionId: target.sessionId, name, spec };
  return {
    scheduleId,
    spec: timesOf(spec),
    action: {
      type: 'startWorkflow',
      workflowType: scheduledMessageWorkflowType,
      // Temporal appends each firing's time: `<schedule id>-<time>`, the firing's message id.
      workflowId: scheduleId,
      taskQueue: target.taskQueue,
      args: [input],
    },
    policies: { overlap: ScheduleOverlapPolicy.BUFFER_ONE, catchupWindow },
    state: {
      ...(spec.paused ? { paused: true } : {}),
      ...(spec.note !== undefined ? { note: spec.note } : {}),
      // A one-time schedule is a schedule with one action left.
      ...(spec.at !== undefined ? { remainingActions: 1 } : spec.remainingActions !== undefined ? { remainingActions: spec.remainingActions } : {}),
    },
    memo: { [scheduleMemoKey]: memo },
  };
}

/** Whether two specs ask for the same schedule (a repeated create is then a no-op). */
export function isSameSpec(a: ParsedSessionScheduleSpec, b: ParsedSessionScheduleSpec): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
