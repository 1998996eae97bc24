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
      handle: async ({ params, body, principal }) => {
        const answer = await op.perform(agents, params.id ?? '', body, principal);
        return op.status === 204 ? undefined : answer;
      },
    }),
  );
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
