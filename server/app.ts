import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { z } from 'zod';
import { quoted } from '../contracts/safe-text';
import { metricsRoutes } from './api/metrics';
import { runRoutes } from './api/runs';
import { sessionRoutes } from './api/sessions';
import { tenantRoutes } from './api/tenants';
import { codecRoutes } from './codec';
import type { ServerContext } from './context';
import { mountDashboard } from './dashboard';
import { ApiError, toApiError } from './errors';
import { agUiRoutes, chatRoutes, liveRoutes, sessionAgUiRoutes, sessionChatRoutes } from './live';
import { inboxRoutes } from './api/inbox';
import { webhookRoutes } from './webhooks';
import { approvalLinkRoutes, mountApprovalPages } from './approval-links';
import { defaultMaxBodyBytes, originGuard } from './request-guard';
import { mountRoutes, openApiDocument, route, type AnyRoute } from './routes';
import { tenantOfRuns } from './tenant-scope';

/**
 * API version, shown in the OpenAPI document and `/api/health`: the package's version (a unit
 * test keeps them equal; package.json is not beside this file once built).
 */
export const apiVersion = '1.0.0-rc.0';
const version = apiVersion;

/** Options of the HTTP layer itself. */
export interface AppOptions {
  /**
   * Origins allowed by CORS (`*` for any); none by default (same origin only). They may also
   * send requests: any other `Origin` is refused (403), see {@link originGuard}.
   */
  readonly corsOrigins?: readonly string[];
  /** Largest request body read, in bytes (413 beyond). Default 1 MiB. */
  readonly maxBodyBytes?: number;
}

/** Every route of the API, in the order of the OpenAPI document. */
export function apiRoutes(ctx: ServerContext): AnyRoute[] {
  const meta: AnyRoute[] = [
    route({
      method: 'get',
      path: '/api/health',
      access: 'public',
      summary: 'Liveness of the server (not of Temporal)',
      tags: ['meta'],
      response: z.object({ ok: z.literal(true), version: z.string() }),
      handle: () => ({ ok: true as const, version }),
    }),
    route({
      method: 'get',
      path: '/api/whoami',
      access: 'viewer',
      summary: 'Who the token belongs to, its role, and whether the server runs in local-dev mode',
      tags: ['meta'],
      response: z.object({ name: z.string(), role: z.string(), tenant: z.string().optional(), localDev: z.boolean() }),
      handle: ({ principal }) => ({ name: principal.name, role: principal.role, ...(principal.tenant ? { tenant: principal.tenant } : {}), localDev: ctx.auth.localDev }),
    }),
  ];
  return [...meta, ...runRoutes(ctx), ...sessionRoutes(ctx), ...webhookRoutes(ctx), ...approvalLinkRoutes(ctx), ...inboxRoutes(ctx), ...tenantRoutes(ctx), ...liveRoutes(ctx), ...chatRoutes(ctx), ...sessionChatRoutes(ctx), ...agUiRoutes(ctx), ...sessionAgUiRoutes(ctx), ...codecRoutes(ctx), ...metricsRoutes(ctx)];
}

/**
 * The Hono app of the API, the OpenAPI document at `/openapi.json` and the dashboard at `/`.
 * Every error is JSON `{ error: { type, message } }`.
 */
export function createAgentApp(ctx: ServerContext, options: AppOptions = {}): Hono {
  const app = new Hono();
  const origins = [...(options.corsOrigins ?? [])];
  app.use('*', originGuard({ localDev: ctx.auth.localDev, allowedOrigins: origins }));
  if (origins.length > 0) {
    app.use('*', cors({ origin: origins.includes('*') ? '*' : origins, allowHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID', 'X-Namespace', 'Idempotency-Key'], credentials: !origins.includes('*'), exposeHeaders: ['Content-Type'] }));
  }
  const routes = apiRoutes(ctx);
  // Built on the first request and kept: the routes never change while the server runs.
  let document: Record<string, unknown> | undefined;
  app.get('/openapi.json', (c) => c.json((document ??= openApiDocument(routes, { title: 'durable-agents', version }))));
  const tenantScope = { tenantOf: tenantOfRuns(ctx.agents), sessionWorkflowId: (id: string) => ctx.agents.session(id).workflowId };
  mountRoutes(app, ctx.auth, routes, { tenantScope, ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}) });
  mountApprovalPages(app, ctx, options.maxBodyBytes ?? defaultMaxBodyBytes);
  mountDashboard(app);
  app.notFound((c) => {
    const error = new ApiError('not_found', `no route ${c.req.method} ${quoted(c.req.path, 100)}; the API is described at /openapi.json`);
    return c.json(error.body(), error.status);
  });
  app.onError((err, c) => {
    const error = toApiError(err);
    if (error.type === 'failure') console.error(`durable-agents server: ${c.req.method} ${quoted(c.req.path, 200)}:`, err);
    return c.json(error.body(), error.status);
  });
  return app;
}
