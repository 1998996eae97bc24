import { z } from 'zod';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { ServerContext } from '../context';
import { ApiError } from '../errors';
import { startTenant } from '../tenant-scope';
import { route, type AnyRoute } from '../routes';
import { checkpointSchema, forkBodySchema, forkResultSchema, rewindBodySchema, rewindResultSchema, rewindsQuerySchema, runIdQuerySchema, runRewindSchema } from './schemas';

/**
 * The fork-capture bundle of the server's workflows module: built on the first fork (a few
 * seconds), then reused. A failed build is forgotten so the next fork tries again.
 */
function forkBundle(workflowsPath: string): () => Promise<WorkflowBundleWithSourceMap> {
  let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
  return () => {
    bundle ??= import('../../worker/fork').then(({ bundleForkCapture }) => bundleForkCapture(workflowsPath));
    bundle.catch(() => {
      bundle = undefined;
    });
    return bundle;
  };
}

/** Turn boundaries of a run, rewinds (same workflow id) and forks (a new one). */
export function runCheckpointRoutes(ctx: ServerContext): AnyRoute[] {
  const { agents } = ctx;
  const tags = ['checkpoints'];
  const bundle = ctx.workflowsPath ? forkBundle(ctx.workflowsPath) : undefined;
  return [
    route({
      method: 'get',
      path: '/api/runs/:id/checkpoints',
      access: 'viewer',
      summary: "A run's turn boundaries: where rewind and fork go back to",
      tags,
      query: runIdQuerySchema,
      response: z.object({ checkpoints: z.array(checkpointSchema) }),
      handle: async ({ params, query }) => ({ checkpoints: await agents.checkpoints(params.id ?? '', query.runId) }),
    }),
    route({
      method: 'post',
      path: '/api/runs/:id/rewind',
      access: 'admin',
      summary: 'Reset a run to a turn boundary; it continues under the same workflow id with a new run id',
      description: '`with`: corrections (interventions) applied at the rewind point; `reapply`: re-apply later signals and updates.',
      tags,
      body: rewindBodySchema,
      response: rewindResultSchema,
      handle: ({ params, body }) => agents.rewind(params.id ?? '', body),
    }),
    route({
      method: 'get',
      path: '/api/runs/:id/rewinds',
      access: 'viewer',
      summary: 'Where a run was rewound: the turn it went back to, when, the reason and the corrections',
      description:
        'Oldest first, as the histories of the reset executions record them (the latest execution, or `runId`, and up to three it continued as new from). ' +
        "Each rewind's events from its turn on replaced those of `replacedRunId`. Reads histories only: nothing is written to the run and no worker is needed.",
      tags,
      query: rewindsQuerySchema,
      response: z.object({ rewinds: z.array(runRewindSchema) }),
      handle: async ({ params, query }) => ({ rewinds: await agents.rewinds(params.id ?? '', query.runId) }),
    }),
    route({
      method: 'post',
      path: '/api/runs/:id/fork',
      access: 'admin',
      summary: "Start a new run (new workflow id) from a run's state at a turn boundary",
      description: 'Needs the server started with workflowsPath (it replays the run\'s history with it); 501 not_configured otherwise.',
      tags,
      body: forkBodySchema,
      response: forkResultSchema,
      status: 201,
      handle: async ({ params, body, principal }) => {
        if (!bundle) throw new ApiError('not_configured', 'fork needs the server started with workflowsPath (your workflows module), which it replays the run\'s history with');
        // A fork is charged to the tenant that forks: a scoped token's own, or the one an admin names.
        const tenant = startTenant(principal, body.tenant);
        const [{ forkRun }, workflowBundle] = await Promise.all([import('../../worker/fork'), bundle()]);
        return forkRun(agents.client, params.id ?? '', { ...body, ...(tenant !== undefined ? { tenant } : {}), workflowBundle });
      },
    }),
  ];
}
