import { z } from 'zod';
import { checkScheduleSpec, scheduleSpecFields } from '../../client/session-schedule-spec';
import type { ServerContext } from '../context';
import { route, type AnyRoute } from '../routes';

const firingSchema = z.object({ scheduledAt: z.string(), takenAt: z.string(), workflowId: z.string(), runId: z.string() });

/** What `GET /api/sessions/:id/schedules/:name` answers (SessionScheduleDescription). */
const scheduleDescriptionSchema = z.object({
  scheduleId: z.string(),
  sessionId: z.string(),
  name: z.string(),
  spec: z.object(scheduleSpecFields).optional(),
  paused: z.boolean(),
  note: z.string().optional(),
  remainingActions: z.number().int().optional(),
  firings: z.number().int(),
  skippedOverlap: z.number().int(),
  missedCatchupWindow: z.number().int(),
  recentFirings: z.array(firingSchema),
  nextFirings: z.array(z.string()),
});

const scheduleSummarySchema = z.object({ scheduleId: z.string(), name: z.string(), paused: z.boolean(), note: z.string().optional(), nextFirings: z.array(z.string()) });

/** The body of a create: the schedule's name beside its spec. */
const createScheduleBodySchema = z
  .object({ name: z.string().describe('The schedule name within the session: letters, digits, _ . - (at most 64)'), ...scheduleSpecFields })
  .strict()
  .superRefine((body, ctx) => checkScheduleSpec(body, ctx));

const noteBodySchema = z.object({ note: z.string().max(1000).optional() }).strict();

/**
 * A session's schedules: messages posted into it on a cron, an interval or once (Temporal
 * Schedules, see client/session-schedules.ts). Operators create and drive them, viewers read them.
 */
export function sessionScheduleRoutes(ctx: ServerContext): AnyRoute[] {
  const { agents } = ctx;
  const tags = ['sessions'];
  const schedules = (sessionId: string | undefined) => agents.session(sessionId ?? '').schedules;
  const one = (params: Readonly<Record<string, string>>) => schedules(params.id).get(params.name ?? '');
  const control = (path: 'pause' | 'unpause' | 'trigger', summary: string) =>
    route({
      method: 'post',
      path: `/api/sessions/:id/schedules/:name/${path}`,
      access: 'operator',
      summary,
      tags,
      body: noteBodySchema,
      status: 204,
      handle: async ({ params, body }) => {
        const schedule = one(params);
        if (path === 'trigger') await schedule.trigger();
        else await schedule[path](body.note);
      },
    });
  return [
    route({
      method: 'post',
      path: '/api/sessions/:id/schedules',
      access: 'operator',
      summary: 'Schedule a message into a session: cron, every (with offset) or at',
      description:
        'Creating the same schedule again (same name, same spec) changes nothing; another spec under an existing name is 409 already_exists. ' +
        '400 names the bad field (e.g. `cron: hour field ...`); 404 when the session does not exist, 409 run_ended when it is closed.',
      tags,
      body: createScheduleBodySchema,
      response: scheduleDescriptionSchema,
      status: 201,
      handle: async ({ params, body }) => {
        const { name, ...spec } = body;
        const schedule = await schedules(params.id).create(name, spec);
        return schedule.describe();
      },
    }),
    route({
      method: 'get',
      path: '/api/sessions/:id/schedules',
      access: 'viewer',
      summary: "A session's schedules (seen a moment after they are created)",
      tags,
      response: z.object({ schedules: z.array(scheduleSummarySchema) }),
      handle: async ({ params }) => ({ schedules: await schedules(params.id).list() }),
    }),
    route({
      method: 'get',
      path: '/api/sessions/:id/schedules/:name',
      access: 'viewer',
      summary: "A session's schedule: its spec, state, recent and next firings",
      tags,
      response: scheduleDescriptionSchema,
      handle: ({ params }) => one(params).describe(),
    }),
    control('pause', 'Pause a schedule (body: optional note)'),
    control('unpause', 'Unpause a schedule (body: optional note)'),
    control('trigger', 'Fire a schedule once now, also when paused'),
    route({
      method: 'delete',
      path: '/api/sessions/:id/schedules/:name',
      access: 'operator',
      summary: 'Delete a schedule (a firing already delivering finishes)',
      tags,
      status: 204,
      handle: async ({ params }) => {
        await one(params).delete();
      },
    }),
  ];
}
