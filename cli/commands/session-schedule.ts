import { jsonValueSchema } from '../../contracts';
import { busyPolicySchema, type BusyPolicy } from '../../contracts/session';
import type { SessionScheduleDescription, SessionScheduleSummary } from '../../client/session-schedules';
import type { SessionScheduleSpec } from '../../client/session-schedule-spec';
import type { OptionSpecs, ParsedArgs } from '../args';
import type { Action } from '../command';
import { UsageError } from '../exit-codes';
import { readScript } from './start';

/** The `session` subcommands on a session's schedules. */
export const scheduleSubcommands = ['schedule', 'schedules', 'schedule-show', 'schedule-pause', 'schedule-unpause', 'schedule-trigger', 'schedule-delete'] as const;
export type ScheduleSubcommand = (typeof scheduleSubcommands)[number];

/** The options of the schedule subcommands that `session` has for no other. */
export const scheduleOptions: OptionSpecs = {
  name: { type: 'string', value: 'NAME', description: 'schedule*: the schedule name within the session (required)' },
  cron: { type: 'string', value: 'EXPR', description: "schedule: a cron expression, e.g. '0 9 * * *' (every day at 09:00)" },
  timezone: { type: 'string', value: 'ZONE', description: 'schedule: the IANA time zone of --cron (default UTC)' },
  every: { type: 'string', value: 'DURATION', description: 'schedule: an interval, e.g. 30s, 15m, 1d' },
  offset: { type: 'string', value: 'DURATION', description: 'schedule: with --every, how far into each interval, e.g. 9h' },
  at: { type: 'string', value: 'TIME', description: 'schedule: once, at an ISO time with offset, e.g. 2030-01-01T09:00:00Z' },
  'catchup-window': { type: 'string', value: 'DURATION|skip', description: 'schedule: post firings missed while the server was down up to this late (default 1h), or skip them' },
  remaining: { type: 'string', value: 'N', description: 'schedule: at most N firings' },
  'when-busy': { type: 'string', value: 'POLICY', description: 'open, send, schedule: what a message does while a run of the session is active: enqueue (default), reject, interrupt, rollback or steer' },
  paused: { type: 'boolean', description: 'schedule: create it paused' },
  note: { type: 'string', value: 'TEXT', description: 'schedule, schedule-pause, schedule-unpause: a note shown by schedule-show' },
};

/** The --when-busy policy (open, send, schedule), checked against the session's policies. */
export function whenBusyOf(args: ParsedArgs): BusyPolicy | undefined {
  const given = args.string('when-busy');
  if (given === undefined) return undefined;
  const parsed = busyPolicySchema().safeParse(given);
  if (!parsed.success) throw new UsageError(`--when-busy: expected one of ${busyPolicySchema().options.join(', ')}, got '${given}'`);
  return parsed.data;
}

/** Options each schedule subcommand takes (beside the ones in {@link scheduleOptions}, `message`, `planner-options` and `script`). */
export const scheduleOptionsOf: Record<ScheduleSubcommand, readonly string[]> = {
  schedule: ['name', 'cron', 'timezone', 'every', 'offset', 'at', 'catchup-window', 'remaining', 'when-busy', 'paused', 'note', 'message', 'planner-options', 'script'],
  schedules: [],
  'schedule-show': ['name'],
  'schedule-pause': ['name', 'note'],
  'schedule-unpause': ['name', 'note'],
  'schedule-trigger': ['name'],
  'schedule-delete': ['name'],
};

/** Whether `name` is a schedule subcommand. */
export function isScheduleSubcommand(name: string): name is ScheduleSubcommand {
  return (scheduleSubcommands as readonly string[]).includes(name);
}

function renderDescription(d: SessionScheduleDescription): string[] {
  const spec = d.spec;
  const when = spec?.cron !== undefined ? `cron ${spec.cron}${spec.timezone ? ` (${spec.timezone})` : ''}` : spec?.every !== undefined ? `every ${spec.every}${spec.offset !== undefined ? ` offset ${spec.offset}` : ''}` : spec?.at !== undefined ? `once at ${spec.at}` : '?';
  const rows: [string, string][] = [
    ['schedule', `${d.name} (${d.scheduleId})`],
    ['session', d.sessionId],
    ['when', when],
    ['message', spec ? JSON.stringify(spec.message.content) : '?'],
    ['state', `${d.paused ? 'paused' : 'active'}${d.note ? `: ${d.note}` : ''}`],
    ['firings', `${d.firings} taken${d.remainingActions !== undefined ? `, ${d.remainingActions} left` : ''}, ${d.skippedOverlap} skipped (overlap), ${d.missedCatchupWindow} missed (catch-up window)`],
    ['next', d.nextFirings.slice(0, 3).join(', ') || 'none'],
  ];
  const recent = d.recentFirings.map((f) => `  ${f.scheduledAt} ${f.workflowId}`);
  return [...rows.map(([k, v]) => `${k.padEnd(12)}${v}`), `recent${recent.length ? '' : '      none'}`, ...recent];
}

function renderList(sessionId: string, schedules: readonly SessionScheduleSummary[]): string[] {
  if (schedules.length === 0) return [`no schedules on session ${sessionId}`];
  return schedules.map((s) => `${s.name}  ${s.paused ? 'paused' : 'active'}  next ${s.nextFirings[0] ?? 'none'}  ${s.scheduleId}`);
}

/** The spec of `session schedule`, from its options (checked again, field by field, by the client). */
function specOf(args: ParsedArgs): SessionScheduleSpec {
  if (args.string('planner-options') !== undefined && args.string('script') !== undefined) throw new UsageError('give --planner-options or --script, not both');
  const script = args.string('script');
  const plannerOptions = script !== undefined ? readScript(script) : args.json('planner-options', jsonValueSchema);
  const whenBusy = whenBusyOf(args);
  const text = (name: string) => args.string(name);
  const spec: Record<string, unknown> = {
    message: { content: args.requiredString('message'), ...(plannerOptions !== undefined ? { plannerOptions } : {}), ...(whenBusy !== undefined ? { whenBusy } : {}) },
  };
  for (const [option, field] of [['cron', 'cron'], ['timezone', 'timezone'], ['every', 'every'], ['offset', 'offset'], ['at', 'at'], ['catchup-window', 'catchupWindow'], ['note', 'note']] as const) {
    const value = text(option);
    if (value !== undefined) spec[field] = value;
  }
  const remaining = args.int('remaining');
  if (remaining !== undefined) spec.remainingActions = remaining;
  if (args.flag('paused')) spec.paused = true;
  return spec as SessionScheduleSpec;
}

/** The action of a schedule subcommand on session `sessionId`. */
export function prepareScheduleCommand(args: ParsedArgs, sub: ScheduleSubcommand, sessionId: string): Action {
  if (sub === 'schedules') {
    return async (ctx) => {
      const schedules = await ctx.agents.session(sessionId).schedules.list();
      ctx.out.emit(schedules, () => renderList(sessionId, schedules));
    };
  }
  const name = args.requiredString('name');
  switch (sub) {
    case 'schedule': {
      const spec = specOf(args);
      return async (ctx) => {
        const schedule = await ctx.agents.session(sessionId).schedules.create(name, spec);
        const described = await schedule.describe();
        ctx.out.emit(described, () => renderDescription(described));
      };
    }
    case 'schedule-show':
      return async (ctx) => {
        const described = await ctx.agents.session(sessionId).schedules.get(name).describe();
        ctx.out.emit(described, () => renderDescription(described));
      };
    case 'schedule-pause':
    case 'schedule-unpause': {
      const note = args.string('note');
      return async (ctx) => {
        const schedule = ctx.agents.session(sessionId).schedules.get(name);
        if (sub === 'schedule-pause') await schedule.pause(note);
        else await schedule.unpause(note);
        const paused = sub === 'schedule-pause';
        ctx.out.emit({ scheduleId: schedule.scheduleId, paused }, () => `schedule ${name} of session ${sessionId} ${paused ? 'paused' : 'unpaused'}`);
      };
    }
    case 'schedule-trigger':
      return async (ctx) => {
        const schedule = ctx.agents.session(sessionId).schedules.get(name);
        await schedule.trigger();
        ctx.out.emit({ scheduleId: schedule.scheduleId, triggered: true }, () => `schedule ${name} of session ${sessionId} fires now`);
      };
    case 'schedule-delete':
      return async (ctx) => {
        const schedule = ctx.agents.session(sessionId).schedules.get(name);
        await schedule.delete();
        ctx.out.emit({ scheduleId: schedule.scheduleId, deleted: true }, () => `schedule ${name} of session ${sessionId} deleted`);
      };
  }
}
