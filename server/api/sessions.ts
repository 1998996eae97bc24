import { z } from 'zod';
import { sessionMessageSchema, sessionReportSchema } from '../../contracts';
import { sessionEventSchema, sessionOperationMessages } from '../../contracts/session';
import { listSessions } from '../../client/run-list';
import { openSessionFor } from '../../client/session-open';
import { checkAgentName, type ServerContext } from '../context';
import { checkTenantScope, listTenant, startTenant, tenantOfRuns } from '../tenant-scope';
import { route, type AnyRoute } from '../routes';
import { listSessionsQuerySchema, openSessionBodySchema, sessionSummarySchema } from './schemas';
import { sessionOperationRoutes } from './run-operations';
import { sessionScheduleRoutes } from './session-schedules';

/**
 * Sessions: conversations of many runs that share state and history (the agentSession workflow).
 * Its operations (the next message, the close) are rows of the session's operations table.
 */
export function sessionRoutes(ctx: ServerContext): AnyRoute[] {
  const { agents } = ctx;
  const tags = ['sessions'];
  return [
    route({
      method: 'post',
      path: '/api/sessions',
      access: 'operator',
      summary: 'Open a session (a no-op when it is open already with the same agent), and send it a first message if given',
      description:
        '422 rejected when the session is open with another agent. With `message`, the session is opened when it is not open and the message is sent in the same call ' +
        '(update-with-start: two such calls for a missing session open it once and both messages are taken); the answer has the run that will handle it.',
      tags,
      body: openSessionBodySchema.extend({ message: sessionMessageSchema.unwrap().omit({ agent: true }).optional() }),
      response: z.object({ workflowId: z.string(), run: sessionOperationMessages.sendMessage.answer().optional() }),
      status: 201,
      handle: async ({ body, principal }) => {
        const { sessionId, message, tenant: named, ...rest } = body;
        checkAgentName(ctx, rest.agent);
        const tenant = startTenant(principal, named);
        const input = { ...rest, ...(tenant !== undefined ? { tenant } : {}) };
        // A session open already (of another tenant) is reached by id like any route's.
        await checkTenantScope(principal, '/api/sessions/:id', { id: sessionId }, tenantOfRuns(agents), (id) => agents.session(id).workflowId);
        if (message) {
          const run = await agents.sendMessage(sessionId, message, { open: input });
          return { workflowId: agents.session(sessionId).workflowId, run };
        }
        return { workflowId: await openSessionFor(agents, sessionId, input) };
      },
    }),
    route({
      method: 'get',
      path: '/api/sessions',
      access: 'viewer',
      summary: 'List sessions, newest first (status `open` while a session runs)',
      tags,
      query: listSessionsQuerySchema,
      response: z.object({ sessions: z.array(sessionSummarySchema) }),
      handle: async ({ query, principal }) => {
        const tenant = listTenant(principal, query.tenant);
        const { entries } = await listSessions(agents, { limit: query.limit }, tenant !== undefined ? { tenant } : {});
        return {
          sessions: entries.map((e) => ({
            sessionId: e.sessionId,
            workflowId: e.workflowId,
            ...(e.agent !== null ? { agent: e.agent } : {}),
            ...(e.tenant !== undefined ? { tenant: e.tenant } : {}),
            status: e.workflowStatus === 'RUNNING' ? 'open' : e.workflowStatus.toLowerCase(),
            startTime: e.startTime,
          })),
        };
      },
    }),
    route({
      method: 'get',
      path: '/api/sessions/:id',
      access: 'viewer',
      summary: "A session's state, history size and runs",
      tags,
      response: sessionReportSchema,
      handle: ({ params }) => agents.session(params.id ?? '').status(),
    }),
    route({
      method: 'get',
      path: '/api/sessions/:id/events',
      access: 'viewer',
      summary: "A session's events after `after` (its decisions about messages and runs), oldest first",
      description: 'It keeps its latest 500; `lastSeq` is the seq of its last event, to ask again with `after`.',
      tags,
      query: z.object({ after: z.coerce.number().int().nonnegative().default(0) }),
      response: z.object({ events: z.array(sessionEventSchema()), lastSeq: z.number().int().nonnegative() }),
      handle: ({ params, query }) => agents.session(params.id ?? '').events(query.after),
    }),
    ...sessionOperationRoutes(ctx),
    ...sessionScheduleRoutes(ctx),
  ];
}
