import type { ServerContext } from '../context';
import { runOperations } from '../operations';
import { route, type AnyRoute } from '../routes';

/**
 * `POST /api/runs/:id/<path>` for every operation of {@link runOperations}: pause, resume, kill,
 * interventions, budget changes, decisions and answers, each a validated update of the run.
 */
export function runOperationRoutes(ctx: ServerContext): AnyRoute[] {
  const { agents } = ctx;
  return runOperations.map((op) =>
    route({
      method: 'post',
      path: `/api/runs/:id/${op.path}`,
      access: op.access,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: op.tags,
      body: op.body,
      response: op.response,
      handle: ({ params, body, principal }) => op.perform(agents, params.id ?? '', body, principal),
    }),
  );
}
