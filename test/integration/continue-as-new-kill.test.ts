import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { AgentClient } from '../../client/agent-client';
import { killUpdate } from '../../contracts';
import { DurableAgentsPlugin } from '../../worker/plugin';
import { testAgents } from '../support/agents';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { agentClient, createTestEnv, inProcessWorkerOptions, uniqueTaskQueue, workflowBundleOption } from '../support/test-env';
import { allToolImplementations } from '../support/tools';
import { waitFor } from '../support/wait';

/**
 * A kill that arrives in the same workflow task as the result that makes the run continue as
 * new. Workflow and activity workers are separate, so the test can hold the workflow task back
 * until both the tool's result and the kill are in history.
 */
let env: TestWorkflowEnvironment;
let agents: AgentClient;
const taskQueue = uniqueTaskQueue('can-kill');
let activityWorker: Worker;
let activitiesRunning: Promise<void>;

async function workflowWorker(): Promise<Worker> {
  return Worker.create({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, workflowBundle: await workflowBundleOption(), ...inProcessWorkerOptions });
}

beforeAll(async () => {
  env = await createTestEnv();
  agents = agentClient(env, taskQueue);
  activityWorker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    plugins: [new DurableAgentsPlugin({ agents: testAgents, tools: allToolImplementations(), runtime: {} })],
  });
  activitiesRunning = activityWorker.run();
});

afterAll(async () => {
  activityWorker.shutdown();
  await activitiesRunning;
  await env.teardown();
});

async function historyHas(workflowId: string, attribute: string): Promise<boolean> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).some((e) => (e as Record<string, unknown>)[attribute] != null);
}

/** True once the server has admitted the update (it waits for a worker then), else undefined. */
async function admitted(workflowId: string, updateId: string): Promise<true | undefined> {
  const stage = temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED;
  const poll = env.client.workflowService.pollWorkflowExecutionUpdate({
    namespace: env.namespace ?? 'default',
    updateRef: { workflowExecution: { workflowId }, updateId },
    waitPolicy: { lifecycleStage: stage },
  });
  return poll.then(
    () => true,
    () => undefined,
  );
}

describe('a kill while the run is about to continue as new', () => {
  it.each(['update', 'signal'] as const)('kill by %s wins: the run ends terminated instead of continuing', async (via) => {
    const first = await workflowWorker();
    const firstRunning = first.run();
    const { workflowId } = await agents.start(
      scriptedInput([callStep({ name: 'sleep', args: { ms: 1_000 } }), callStep({ name: 'echo', args: { text: 'after' } }), finalStep()], {
        policy: { continueAsNewAfterEvents: 1 },
      }),
    );
    await waitFor('the sleep call', async () => ((await agents.events(workflowId)).events.some((e) => e.type === 'tool_call') ? true : undefined));
    first.shutdown();
    await firstRunning;
    await waitFor('the tool result in history', async () => ((await historyHas(workflowId, 'activityTaskCompletedEventAttributes')) ? true : undefined));
    // The update through the raw handle: AgentClient first asks a worker whether one is there,
    // and the one that answers would run on before the kill is sent. The server holds an update
    // for a run no worker serves; the second worker starts once it has it.
    const updateId = `kill-${workflowId}`;
    const killed = via === 'update' ? env.client.workflow.getHandle(workflowId).executeUpdate(killUpdate, { args: [{ reason: 'stop' }], updateId }) : agents.signal(workflowId, 'kill', { reason: 'stop' });
    if (via === 'signal') await killed;
    else await waitFor('the kill update, admitted', () => admitted(workflowId, updateId));

    const second = await workflowWorker();
    const secondRunning = second.run();
    try {
      const result = await agents.result(workflowId);
      expect(result.status).toBe('terminated');
      if (via === 'update') await expect(killed).resolves.toMatchObject({ status: 'terminated' });
      expect(await historyHas(workflowId, 'workflowExecutionContinuedAsNewEventAttributes')).toBe(false);
    } finally {
      second.shutdown();
      await secondRunning;
    }
  });
});
