import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { authenticate, authorize, requestToken, type Access, type AuthConfig, type Principal } from './auth';
import { quoted } from '../contracts/safe-text';
import { fieldNestedTooDeep, maxSafeJsonDepth } from '../contracts/json';
import { ApiError, apiErrorStatus, routeError } from './errors';
import { defaultMaxBodyBytes, isStreamRequest, readBodyText, requireJson } from './request-guard';
import { checkTenantScope, type TenantOf } from './tenant-scope';

/** What a route handler receives: validated input and who asked. */
export interface RouteRequest<Q, B> {
  readonly params: Readonly<Record<string, string>>;
  readonly query: Q;
  readonly body: B;
  readonly principal: Principal;
  /** The Hono context, for streaming responses and headers. */
  readonly c: Context;
  /** The body as received, for a route that reads it so ({@link RouteSpec.rawBody}). */
  readonly rawBody?: string;
}

/**
 * One HTTP route: its access rule, its zod schemas (validation and the OpenAPI document come
 * from the same schemas) and its handler. A handler answers a value (sent as JSON with
 * `status`) or a `Response` (streams), and throws `ApiError` for the caller's mistakes.
 */
export interface RouteSpec<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  readonly method: 'get' | 'post' | 'put' | 'delete';
  /** Hono path syntax: `/api/runs/:id`. */
  readonly path: string;
  readonly access: Access;
  readonly summary: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly query?: Q;
  readonly body?: B;
  readonly response?: z.ZodType;
  /** Content type of a streamed response (e.g. `text/event-stream`), for the OpenAPI document. */
  readonly streams?: string;
  /** Success status; default 200. */
  readonly status?: 200 | 201 | 202 | 204;
  /**
   * Whether the token may come as `?access_token=` (EventSource and browser WebSockets cannot
   * send headers). Taken only on stream GETs of such a route: SSE or a WebSocket upgrade.
   */
  readonly queryToken?: boolean;
  /**
   * The route takes the body as received (`rawBody`), JSON unparsed and unchecked, within the
   * server's size limit: a signature over the exact bytes is checked before it is parsed.
   */
  readonly rawBody?: boolean;
  handle(request: RouteRequest<z.infer<Q>, z.infer<B>>): Promise<unknown> | unknown;
}

/** A route with its input types erased, for route tables. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteSpec<any, any>;

/** Declares a route; the identity function, for type inference of `handle`'s input. */
export function route<Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(spec: RouteSpec<Q, B>): RouteSpec<Q, B> {
  return spec;
}

/** "query.limit: Too big" — the first issue of a zod error, with where it was. */
function describe(where: string, error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${[where, ...issue.path.map(String)].join('.')}: ${issue.message}`)
    .join('; ');
}

function parse<T extends z.ZodType>(schema: T | undefined, value: unknown, where: string): z.infer<T> {
  if (!schema) return undefined as z.infer<T>;
  // Before the schema: a recursive one overflowed the stack on a value some thousands of levels
  // deep (a 500). What a run takes is checked closer to it (AgentClient: 64 levels).
  const tooDeep = fieldNestedTooDeep(value, () => true, maxSafeJsonDepth);
  if (tooDeep !== undefined) throw new ApiError('invalid_input', `${where}.${tooDeep}: nested deeper than ${maxSafeJsonDepth} levels`);
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ApiError('invalid_input', describe(where, parsed.error));
  return parsed.data;
}

async function readBody(c: Context, maxBytes: number): Promise<unknown> {
  const text = await readBodyText(c, maxBytes);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ApiError('invalid_input', `the request body is not JSON: ${err instanceof Error ? quoted(err.message, 100) : 'unreadable'}`);
  }
}

/**
 * Authenticates and authorizes a request for `access`. The token is the Authorization header,
 * or `?access_token=` on the stream GETs of a route that takes it (anywhere else a token in the
 * URL is refused: URLs end up in logs and browser history).
 */
export function principalOf(c: Context, auth: AuthConfig, access: Access, queryToken = false): Principal {
  const accessToken = c.req.query('access_token');
  if (accessToken !== undefined && !(queryToken && isStreamRequest(c))) {
    throw new ApiError('unauthorized', 'access_token is taken only by stream GETs (SSE with Accept: text/event-stream, WebSocket upgrades); send Authorization: Bearer <token>');
  }
  if (access === 'public') return { name: 'anonymous', role: 'viewer' };
  const principal = authenticate(auth, requestToken(c.req.header('authorization'), accessToken));
  authorize(principal, access);
  return principal;
}

/** Longest path parameter (a run id): Temporal's default limit of workflow ids. */
const maxParamChars = 1000;

/** Settings of {@link mountRoutes}. */
export interface MountOptions {
  /** Largest request body read, in bytes. Default {@link defaultMaxBodyBytes}. */
  readonly maxBodyBytes?: number;
  /** Whose run or session an id is, for tokens scoped to a tenant (server/tenant-scope.ts). */
  readonly tenantScope?: { readonly tenantOf: TenantOf; readonly sessionWorkflowId: (sessionId: string) => string };
}

/** Registers routes on a Hono app; errors become JSON by the app's error handler. */
export function mountRoutes(app: Hono, auth: AuthConfig, routes: readonly AnyRoute[], options: MountOptions = {}): void {
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  for (const spec of routes) {
    app.on(spec.method.toUpperCase(), spec.path, async (c) => {
      const principal = principalOf(c, auth, spec.access, spec.queryToken);
      // Every write says its body is JSON: a browser sends text/plain and form bodies
      // cross-site without asking first, never application/json.
      if (spec.method !== 'get') requireJson(c);
      // The token may come as a query parameter (EventSource, WebSocket); it is no input.
      const query: Record<string, string> = { ...c.req.query() };
      delete query.access_token;
      const params = c.req.param() as Record<string, string>;
      for (const [name, value] of Object.entries(params)) {
        if (value.length > maxParamChars) throw new ApiError('invalid_input', `params.${name}: at most ${maxParamChars} characters (Temporal's limit of ids); got ${value.length}`);
      }
      await checkTenantScope(principal, spec.path, params, options.tenantScope?.tenantOf, options.tenantScope?.sessionWorkflowId ?? ((id) => `session-${id}`));
      const input = {
        params,
        query: parse(spec.query, query, 'query'),
        body: spec.body ? parse(spec.body, await readBody(c, maxBodyBytes), 'body') : undefined,
        principal,
        c,
        ...(spec.rawBody ? { rawBody: await readBodyText(c, maxBodyBytes) } : {}),
      };
      let result: unknown;
      try {
        result = await spec.handle(input);
      } catch (err) {
        throw routeError(err, input.params) ?? err;
      }
      if (result instanceof Response) return result;
      if (spec.status === 204) return c.body(null, 204);
      return c.json(result ?? {}, spec.status ?? 200);
    });
  }
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): unknown {
  try {
    return z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  } catch {
    return {};
  }
}

const errorResponse = {
  description: 'An error: `{ error: { type, message } }`; `type` is one of the closed set in the description.',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          error: {
            type: 'object',
            properties: {
              type: { type: 'string', enum: Object.keys(apiErrorStatus) },
              message: { type: 'string' },
            },
            required: ['type', 'message'],
          },
        },
        required: ['error'],
      },
    },
  },
};

/** The OpenAPI 3.1 document of a route table, from the same zod schemas that validate. */
export function openApiDocument(routes: readonly AnyRoute[], info: { title: string; version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routes) {
    const path = spec.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const params = [...spec.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const querySchema = spec.query ? (jsonSchema(spec.query, 'input') as { properties?: Record<string, unknown>; required?: string[] }) : undefined;
    const queryParams = Object.entries(querySchema?.properties ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: querySchema?.required?.includes(name) ?? false,
      schema,
    }));
    const status = String(spec.status ?? 200);
    const ok = spec.streams
      ? { description: spec.summary, content: { [spec.streams]: { schema: { type: 'string' } } } }
      : spec.status === 204
        ? { description: 'No content' }
        : { description: spec.summary, content: { 'application/json': { schema: spec.response ? jsonSchema(spec.response, 'output') : {} } } };
    (paths[path] ??= {})[spec.method] = {
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      ...(spec.tags ? { tags: spec.tags } : {}),
      ...(spec.access === 'public' ? { security: [] } : { 'x-required-role': spec.access }),
      parameters: [...params, ...queryParams],
      ...(spec.body || spec.rawBody ? { requestBody: { required: true, content: { 'application/json': { schema: spec.body ? jsonSchema(spec.body, 'input') : {} } } } } : {}),
      responses: { [status]: ok, default: errorResponse },
    };
  }
  return {
    openapi: '3.1.0',
    info,
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
