import {
  budgetChangeSchema,
  costReportSchema,
  interventionReceiptSchema,
  interventionSchema,
  killRequestSchema,
  pauseRequestSchema,
  pauseResultSchema,
  resumeRequestSchema,
  runStatusReportSchema,
} from '../../contracts';
import type { ServerContext } from '../context';
import { route, type AnyRoute } from '../routes';

/** Pause, resume, kill, interventions and budget changes: the validated updates of a run. */
export function runControlRoutes(ctx: ServerContext): AnyRoute[] {
  const { agents } = ctx;
  const tags = ['control'];
  return [
    route({
      method: 'post',
      path: '/api/runs/:id/pause',
      access: 'operator',
      summary: 'Pause a run at its next safe point; answers once paused',
      tags,
      body: pauseRequestSchema,
      response: pauseResultSchema,
      handle: ({ params, body }) => agents.pause(params.id ?? '', body),
    }),
    route({
      method: 'post',
      path: '/api/runs/:id/resume',
      access: 'operator',
      summary: 'Resume a paused run; answers its new status',
      tags,
      body: resumeRequestSchema,
      response: runStatusReportSchema,
      handle: ({ params, body }) => agents.resume(params.id ?? '', body.reason),
    }),
    route({
      method: 'post',
      path: '/api/runs/:id/kill',
      access: 'admin',
      summary: 'End a run now, cancelling its in-flight calls; answers once it has ended',
      tags,
      body: killRequestSchema,
      response: runStatusReportSchema,
      handle: ({ params, body }) => agents.kill(params.id ?? '', body),
    }),
    route({
      method: 'post',
      path: '/api/runs/:id/interventions',
      access: 'operator',
      summary: 'Apply or queue an intervention (inject a message, edit or drop a call, block a tool, set a breakpoint, …)',
      tags,
      body: interventionSchema,
      response: interventionReceiptSchema,
      handle: ({ params, body }) => agents.intervene(params.id ?? '', body),
    }),
    route({
      method: 'post',
      path: '/api/runs/:id/budget',
      access: 'operator',
      summary: "Change a run's caps while it runs; answers the new cost report",
      tags,
      body: budgetChangeSchema,
      response: costReportSchema,
      handle: ({ params, body }) => agents.setBudget(params.id ?? '', body),
    }),
  ];
}

