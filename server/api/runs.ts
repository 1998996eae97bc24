import { ServiceError } from '@temporalio/client';
import { runResultSchema } from '../../contracts';
import { NoWorkerError, type AgentClient } from '../../client/agent-client';
import { refusedStartMessage, type StartOptions } from '../../client/start-needs-worker';
import type { RunInput } from '../../contracts';
import { readOrRecorded } from '../../client/no-worker-reads';
import { listRuns, type RunListEntry } from '../../client/run-list';
import { checkAgentName, type ServerContext } from '../context';
import { checkTenantScope, listTenant, startTenant, tenantOfRuns } from '../tenant-scope';
import { ApiError } from '../errors';
import { route, type AnyRoute } from '../routes';
import { noWorkerOf } from './no-worker';
import { runCheckpointRoutes } from './run-checkpoints';
import { RunDetails } from './run-details';
import { runResultOrWhyNot } from './run-result';
import { runOperationRoutes } from './run-operations';
import { runInputRoutes } from './run-inputs';
import { historyJsonSchema, listRunsQuerySchema, runIdQuerySchema, runListSchema, runStatusResponseSchema, startRunBodySchema, startedRunSchema, type RunSummary } from './schemas';

/** How long the status route waits for a worker that polls the run's task queue before it reads the run's history instead. */
const statusQueryTimeoutMs = 5_000;

/** gRPC INVALID_ARGUMENT: what the server answers to a page token it did not issue. */
const grpcInvalidArgument = 3;

/** A listing entry as the API shows it. */
export function runSummary(entry: RunListEntry): RunSummary {
  return {
    workflowId: entry.workflowId,
    runId: entry.runId,
    ...(entry.agent !== null ? { agent: entry.agent } : {}),
    ...(entry.tenant !== undefined ? { tenant: entry.tenant } : {}),
    status: entry.status,
    temporalStatus: entry.workflowStatus,
    startTime: entry.startTime,
    ...(entry.closeTime !== null ? { closeTime: entry.closeTime } : {}),
    waitingForHuman: entry.workflowStatus === 'RUNNING' && entry.status === 'awaiting',
    ...(entry.encrypted ? { encrypted: entry.encrypted } : {}),
    ...(entry.earlierExecutions ? { earlierExecutions: entry.earlierExecutions } : {}),
  };
}

/** Starts a run; a refusal for want of a worker names the body field that starts it anyway. */
async function startRun(agents: AgentClient, input: RunInput, options: StartOptions): Promise<{ workflowId: string; runId: string }> {
  try {
    return await agents.start(input, options);
  } catch (err) {
    if (!(err instanceof NoWorkerError)) throw err;
    throw new NoWorkerError(err.presence, err.reason, refusedStartMessage(err.presence, { taskQueue: "the API server's TEMPORAL_TASK_QUEUE", startAnyway: '"allowNoWorker": true in the body' }));
  }
}

/** The control API of runs: start, list, read; plus control, human inputs and checkpoints. */
export function runRoutes(ctx: ServerContext): AnyRoute[] {
  const { agents } = ctx;
  const tags = ['runs'];
  const details = new RunDetails(agents);
  return [
    route({
      method: 'post',
      path: '/api/runs',
      access: 'operator',
      summary: 'Start a run',
      description:
        'The body is the run input (agent, messages, sessionState, policy, …) and optionally its workflowId. A server given its agents (`agentNames`) refuses others with 400. ' +
        'A token scoped to a tenant starts the run under its tenant (403 for another `tenant`); only an admin token names a `tenant` of its choice. ' +
        'The workflowId of a running run is 409 `already_started`; of a closed run, 409 `already_exists` naming it, unless `reuseClosedId: true` (the new run then answers for the id). A start on a task queue no worker has polled in the last 5 minutes is refused with 503 naming the queue, unless `allowNoWorker` is true (the run then waits for a worker).',
      tags,
      body: startRunBodySchema,
      response: startedRunSchema,
      status: 201,
      handle: async ({ body, principal }) => {
        const { workflowId, reuseClosedId, allowNoWorker, tenant: named, ...rest } = body;
        checkAgentName(ctx, rest.agent);
        const tenant = startTenant(principal, named);
        // The id of a run of another tenant is not this token's to reuse (nor to learn of).
        if (workflowId !== undefined) await checkTenantScope(principal, '/api/runs/:id', { id: workflowId }, tenantOfRuns(agents), (id) => id);
        const input: RunInput = { ...rest, ...(tenant !== undefined ? { tenant } : {}) };
        return startRun(agents, input, { ...(workflowId !== undefined ? { workflowId } : {}), ...(reuseClosedId ? { reuseClosedId } : {}), ...(allowNoWorker ? { allowNoWorker } : {}) });
      },
    }),
    route({
      method: 'get',
      path: '/api/runs',
      access: 'viewer',
      summary: 'List runs, newest first, by agent, status and tenant',
      description: '`details=true` adds each run\'s turn, iterations and cost (a status query per running run, a result read per completed one).',
      tags,
      query: listRunsQuerySchema,
      response: runListSchema,
      handle: async ({ query, principal }) => {
        const { agent, status, limit, pageToken } = query;
        const tenant = listTenant(principal, query.tenant);
        try {
          const page = await listRuns(agents, { ...(agent !== undefined ? { agent } : {}), ...(status !== undefined ? { status } : {}), ...(tenant !== undefined ? { tenant } : {}) }, { limit, ...(pageToken ? { pageToken } : {}) });
          const runs = page.entries.map(runSummary);
          return { runs: query.details === 'true' ? await details.add(runs) : runs, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}) };
        } catch (err) {
          if (pageToken && err instanceof ServiceError && (err.cause as { code?: unknown } | undefined)?.code === grpcInvalidArgument) {
            throw new ApiError('invalid_input', 'query.pageToken: not a page token of this listing');
          }
          throw err;
        }
      },
    }),
    route({
      method: 'get',
      path: '/api/runs/:id',
      access: 'viewer',
      summary: "A run's status, pending calls, controls and budget",
      description:
        'The status query. When no worker can answer it, what the run\'s history says (`source: "history"`, with `noWorker`: the task queue, when a worker last polled it and why): ' +
        `at once when no worker polls the run's task queue, else after ${statusQueryTimeoutMs / 1000} s without an answer.`,
      tags,
      response: runStatusResponseSchema,
      handle: async ({ params }) => {
        const id = params.id ?? '';
        return readOrRecorded(
          agents,
          id,
          () => agents.status(id, { timeoutMs: statusQueryTimeoutMs }),
          async (why) => {
            const recorded = await agents.statusFromHistory(id);
            // A closed run a polled worker did not answer ended before it registered its queries: no worker is missing.
            return recorded.workflowStatus !== 'RUNNING' && why.presence.polled ? recorded : { ...recorded, noWorker: noWorkerOf(why) };
          },
        );
      },
    }),
    route({
      method: 'get',
      path: '/api/runs/:id/result',
      access: 'viewer',
      summary: 'Wait for a run to end; its result',
      description: '`runId`: of that execution (e.g. a closed run whose workflow id a later start reused). A run that ended without a result (failed, terminated by Temporal) is 409 `run_failed` naming how and why.',
      tags,
      query: runIdQuerySchema,
      response: runResultSchema,
      handle: ({ params, query }) => runResultOrWhyNot(agents, params.id ?? '', query.runId),
    }),
    route({
      method: 'get',
      path: '/api/runs/:id/history',
      access: 'viewer',
      summary: "The run's Temporal history as JSON (as `agentctl history export` writes it)",
      tags,
      query: runIdQuerySchema,
      response: historyJsonSchema,
      handle: async ({ params, query, c }) => {
        const json = await agents.exportHistory(params.id ?? '', query.runId);
        return c.body(json, 200, { 'Content-Type': 'application/json; charset=utf-8' });
      },
    }),
    ...runOperationRoutes(ctx),
    ...runInputRoutes(ctx),
    ...runCheckpointRoutes(ctx),
  ];
}
