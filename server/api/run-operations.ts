import { z } from 'zod';
import type { AgentClient } from '../../client/agent-client';
import { resolveTreePath, TreePathError } from '../../client/run-tree';
import { quoted } from '../../contracts/safe-text';
import type { ServerContext } from '../context';
import { ApiError } from '../errors';
import { runOperations, sessionOperations, type AnyOperation } from '../operations';
import { route, type AnyRoute } from '../routes';

/** `POST <resource>/:id/<path>` for every operation of a table (server/operations.ts). */
export function operationRoutes(agents: AgentClient, resource: string, operations: readonly AnyOperation[]): AnyRoute[] {
  return operations.map((op) =>
    route({
      method: 'post',
      path: `${resource}/:id/${op.path}`,
      access: op.access,
      summary: op.summary,
      ...(op.description !== undefined ? { description: op.description } : {}),
      tags: op.tags,
      ...(op.body ? { body: op.body } : {}),
      ...(op.response ? { response: op.response } : {}),
      ...(op.status !== undefined ? { status: op.status } : {}),
      handle: async ({ params, body, principal, c }) => {
        const payload = op.fromHeaders && op.body ? withHeaderFields(op.body, body, op.fromHeaders, (name) => c.req.header(name)) : body;
        const answer = await op.perform(agents, params.id ?? '', payload, principal);
        return op.status === 204 ? undefined : answer;
      },
    }),
  );
}

/**
 * The body with the fields its headers give (`fromHeaders`: field → header) where it has none,
 * checked again with the operation's schema.
 *
 * @throws ApiError `invalid_input` naming the header whose value the schema refuses.
 */
export function withHeaderFields(schema: z.ZodType, body: unknown, fromHeaders: Readonly<Record<string, string>>, header: (name: string) => string | undefined): unknown {
  let merged = body as Record<string, unknown>;
  for (const [field, name] of Object.entries(fromHeaders)) {
    const value = header(name);
    if (value === undefined || merged[field] !== undefined) continue;
    const next = { ...merged, [field]: value.trim() };
    const check = schema.safeParse(next);
    if (!check.success) {
      const issue = check.error.issues.find((i) => i.path[0] === field) ?? check.error.issues[0];
      throw new ApiError('invalid_input', `header ${name}: ${issue?.message ?? 'invalid'}`);
    }
    merged = check.data as Record<string, unknown>;
  }
  return merged;
}

/**
 * `POST /api/runs/:id/<path>` for every operation on a run: pause, resume, kill, interventions,
 * budget changes, decisions and answers, each a validated update of the run.
 */
export function runOperationRoutes(ctx: ServerContext): AnyRoute[] {
  return operationRoutes(ctx.agents, '/api/runs', runOperations);
}

/** `POST /api/sessions/:id/<path>` for every operation on a session: its next message, its close. */
export function sessionOperationRoutes(ctx: ServerContext): AnyRoute[] {
  return operationRoutes(ctx.agents, '/api/sessions', sessionOperations);
}

/** Call ids from a run down to one of its sub-agent runs. */
const treePathSchema = z.array(z.string().min(1).max(400)).min(1).max(64);

/**
 * The workflow id of the run at `path` under `workflowId` (`resolveTreePath`), with the caller's
 * mistake answered as such.
 *
 * @throws ApiError `run_not_found` naming the element of `body.path` that started no sub-agent.
 */
async function runAtPath(agents: AgentClient, workflowId: string, path: readonly string[]): Promise<string> {
  try {
    return await resolveTreePath(agents, workflowId, path);
  } catch (err) {
    if (!(err instanceof TreePathError)) throw err;
    throw new ApiError('run_not_found', `body.path.${err.index}: run ${quoted(err.workflowId, 100)} has no sub-agent run for call ${quoted(err.toolCallId, 100)}`);
  }
}

/**
 * `POST /api/runs/:id/tree/<path>` for every run operation with a tree variant (decisions and
 * answers): `{ path, <field>: payload }`, routed to the sub-agent run at `path` under this one.
 */
export function treeOperationRoutes(agents: AgentClient, operations: readonly AnyOperation[] = runOperations): AnyRoute[] {
  return operations.flatMap((op) => {
    const { tree, body: payload } = op;
    if (!tree || !payload) return [];
    return [
      route({
        method: 'post',
        path: `/api/runs/:id/tree/${op.path}`,
        access: op.access,
        summary: tree.summary,
        tags: op.tags,
        body: z.object({ path: treePathSchema, [tree.field]: payload }),
        ...(op.response ? { response: op.response } : {}),
        handle: async ({ params, body, principal }) => op.perform(agents, await runAtPath(agents, params.id ?? '', body.path as string[]), body[tree.field], principal),
      }),
    ];
  });
}
