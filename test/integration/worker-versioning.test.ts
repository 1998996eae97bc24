/**
 * Rolling out new worker code while runs are open (worker versioning): two releases of one agent
 * whose workflow code differs incompatibly, each served by a worker of its own build id in one
 * Worker Deployment. The official `temporal` CLI plays the operator.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { AgentClient, AgentClientError } from 'durable-agents/client';
import { createAgentWorker, implementTool, replayHistoryJson } from 'durable-agents/worker';
import { releaseAgentV1, releaseAgentV2, shipV1, shipV2 } from '../support/versioned/agents';
import { lines, runAgentctl } from '../support/agentctl-cli';
import { callStep, observations, scriptedInput } from '../support/scripts';
import { createTestEnv, existingTestServer, uniqueTaskQueue } from '../support/test-env';
import { waitFor } from '../support/wait';
import { bundleWorkflowsForTests } from '../support/bundle-cache';

const cliPath = process.env.TEMPORAL_CLI_PATH ?? '.tools/temporal/bin/temporal';
const deploymentName = `agents-${randomUUID().slice(0, 8)}`;
const taskQueue = uniqueTaskQueue('versioning');

let env: TestWorkflowEnvironment;
let agents: AgentClient;
let bundles: { v1: WorkflowBundleWithSourceMap; v2: WorkflowBundleWithSourceMap };
const workers: { worker: Worker; running: Promise<void> }[] = [];

/** How long a routing change may take to reach the task queue (see `route`). */
const routingMs = 150_000;
// A case routes once or twice: a guard against a hung case, not a timing check.
jest.setTimeout(2 * routingMs + 60_000);

beforeAll(async () => {
  env = await createTestEnv();
  agents = new AgentClient(env.client, taskQueue, false);
  const [v1, v2] = await Promise.all([bundleWorkflowsForTests(require.resolve('../support/versioned/v1-workflows')), bundleWorkflowsForTests(require.resolve('../support/versioned/v2-workflows'))]);
  bundles = { v1, v2 };
}, 120_000);

afterAll(async () => {
  for (const w of workers) if (w.worker.getState() === 'RUNNING') w.worker.shutdown();
  await Promise.allSettled(workers.map((w) => w.running));
  await env?.teardown();
});

/** Runs the official CLI against the test server; resolves with its stdout, rejects with its stderr. */
function temporalCli(...args: string[]): Promise<string> {
  return new Promise((done, fail) => {
    execFile(cliPath, [...args, '--address', env.address, '--namespace', env.namespace ?? 'default'], { timeout: 60_000 }, (error, stdout, stderr) =>
      error ? fail(new Error(`temporal ${args.join(' ')}: ${stderr || error.message}`)) : done(stdout),
    );
  });
}

/** Starts a worker of one release (its bundle, its tool implementation, its build id or none). */
async function startRelease(buildId: 'v1' | 'v2', on: { queue: string; deployment: string | null } = { queue: taskQueue, deployment: deploymentName }): Promise<Worker> {
  const release = buildId === 'v1' ? { agent: releaseAgentV1, tool: implementTool(shipV1, ({ what }) => ({ shipped: what, by: 'v1' })) } : { agent: releaseAgentV2, tool: implementTool(shipV2, ({ what }) => ({ shipped: what, by: 'v2' })) };
  const worker = await createAgentWorker({
    config: { address: env.address, namespace: env.namespace ?? 'default', taskQueue: on.queue },
    connection: env.nativeConnection,
    workflowBundle: bundles[buildId],
    agents: [release.agent],
    tools: [release.tool],
    openai: null,
    encryption: null,
    deployment: on.deployment === null ? null : { name: on.deployment, buildId },
  });
  workers.push({ worker, running: worker.run() });
  return worker;
}

/**
 * Routes new runs to a build id as the operator would with the CLI: makes it the deployment's
 * current version, or its ramping version for `percentage` of new runs, once its worker has
 * registered it, and waits until the change has reached the task queue.
 */
async function route(buildId: string, options: { deployment?: string; rampPercentage?: number } = {}): Promise<void> {
  const deployment = options.deployment ?? deploymentName;
  await waitFor(
    `version ${buildId} to register`,
    () =>
      temporalCli('worker', 'deployment', 'describe-version', '--deployment-name', deployment, '--build-id', buildId, '-o', 'json').then(
        () => true,
        () => undefined,
      ),
    60_000,
  );
  const ramping = options.rampPercentage !== undefined;
  await temporalCli(
    'worker', 'deployment', ramping ? 'set-ramping-version' : 'set-current-version', '--deployment-name', deployment, '--build-id', buildId,
    ...(ramping ? ['--percentage', String(options.rampPercentage)] : []), '--yes',
  );
  // The routing change reaches the task queue's partitions asynchronously, carried by the server's
  // own deployment workflows (on a loaded machine that took over 60 s); wait until it has. The
  // deployment's update state can stay IN_PROGRESS after its task queues have the change
  // (temporalio/temporal#11842, seen once in a CI run here): after a minute, the task queue's own
  // routing naming the build id is enough (the suite's queue only; by then its partitions have it).
  const { RoutingConfigUpdateState } = temporal.api.enums.v1;
  const queueSufficesAfter = Date.now() + 60_000;
  await waitFor(`version ${buildId} to be ${ramping ? 'ramping' : 'current'} on the task queue`, async () => {
    const { workerDeploymentInfo: info } = await env.client.workflowService.describeWorkerDeployment({ namespace: env.namespace ?? 'default', deploymentName: deployment });
    const routed = ramping ? info?.routingConfig?.rampingDeploymentVersion?.buildId : info?.routingConfig?.currentDeploymentVersion?.buildId;
    if (routed !== buildId) return undefined;
    if (info?.routingConfigUpdateState === RoutingConfigUpdateState.ROUTING_CONFIG_UPDATE_STATE_COMPLETED) return true;
    if (deployment !== deploymentName || Date.now() < queueSufficesAfter) return undefined;
    return (await queueRoutes(taskQueue, buildId, ramping)) ? true : undefined;
  }, routingMs);
}

/** Whether the task queue's own routing (what matching routes by) names the build id, for workflow and activity tasks. */
async function queueRoutes(queue: string, buildId: string, ramping: boolean): Promise<boolean> {
  const { TaskQueueType } = temporal.api.enums.v1;
  for (const taskQueueType of [TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY]) {
    const described = await env.client.workflowService.describeTaskQueue({ namespace: env.namespace ?? 'default', taskQueue: { name: queue }, taskQueueType }).catch(() => undefined);
    const version = ramping ? described?.versioningInfo?.rampingDeploymentVersion : described?.versioningInfo?.currentDeploymentVersion;
    if (version?.buildId !== buildId) return false;
  }
  return true;
}

/** How many running executions the CLI counts pinned to a version (search attribute `deployment:buildId`). */
async function runningOn(buildId: string): Promise<number> {
  const out = await temporalCli('workflow', 'count', '--query', `TemporalWorkerDeploymentVersion = '${deploymentName}:${buildId}' AND ExecutionStatus = 'Running'`);
  return Number(/Total: (\d+)/.exec(out)?.[1] ?? NaN);
}

function shipRun(...what: string[]) {
  const calls = what.map((w) => callStep({ name: 'ship', args: { what: w } }));
  return { ...scriptedInput([...calls, { type: 'final', text: `shipped ${what.join(', ')}`, reportObservations: true }]), agent: 'release' };
}

/** The run's open approval requests, once there are any (a session's run may not exist yet). */
function approvals(workflowId: string) {
  return waitFor('an approval request', async () => {
    const pending = await agents.pendingInputs(workflowId).catch((err: unknown) => {
      if (err instanceof AgentClientError && err.type === 'run_not_found') return undefined;
      throw err;
    });
    return pending && pending.approvals.length > 0 ? pending.approvals : undefined;
  });
}

/** The build ids that completed the run's workflow tasks, in order, as its history stamps them. */
async function taskBuildIds(workflowId: string): Promise<string[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const done = e.workflowTaskCompletedEventAttributes;
    return done ? [`${done.deploymentVersion?.deploymentName ?? '-'}.${done.deploymentVersion?.buildId ?? '-'}`] : [];
  });
}

describe('worker versioning: a new release rolls out while a run waits', () => {
  let oldRun: string;
  let longRun: string;
  const sessionId = `versioned-${randomUUID().slice(0, 8)}`;

  it('a run started on release 1 waits for its approval, pinned to release 1', async () => {
    await startRelease('v1');
    await route('v1');
    ({ workflowId: oldRun } = await agents.start(shipRun('A')));
    expect((await approvals(oldRun)).map((a) => a.toolCallId)).toEqual(['call_0_0']);
    expect(await agents.workerVersion(oldRun)).toEqual({ deploymentName, buildId: 'v1', behavior: 'PINNED', override: null });
    await waitFor('the run counted on v1', async () => ((await runningOn('v1')) === 1 ? true : undefined));
    const status = await runAgentctl({ env, agents, taskQueue }, ['status', oldRun]);
    expect(status.code).toBe(0);
    expect(lines(status.stdout)).toContain(`worker      ${deploymentName}.v1 (pinned)`);
    // A long run: it continues as new after its first call (a low event threshold).
    ({ workflowId: longRun } = await agents.start({ ...shipRun('C1', 'C2'), policy: { continueAsNewAfterEvents: 10 } }));
    await approvals(longRun);
    // A session whose first run ran on release 1; it stays open, idle.
    await agents.openSession(sessionId, { agent: 'release' });
    const first = await agents.sendMessage(sessionId, { content: 'hello', plannerOptions: { steps: [{ type: 'final', text: 'hi' }] } });
    expect((await waitFor('the first session run', () => agents.result(first.workflowId).catch(() => undefined))).final?.text).toBe('hi');
    expect(await agents.workerVersion(first.workflowId)).toMatchObject({ buildId: 'v1' });
  });

  it('release 2 ramping at 100 %, then current: new runs run on release 2 (no approval there)', async () => {
    await startRelease('v2');
    await route('v2', { rampPercentage: 100 });
    const ramped = await agents.start(shipRun('R'));
    expect(observations(await agents.result(ramped.workflowId)).map((o) => o.result)).toEqual([{ shipped: 'R', by: 'v2' }]);

    await route('v2');
    const described = JSON.parse(await temporalCli('worker', 'deployment', 'describe', '--name', deploymentName, '-o', 'json')) as { routingConfig: { currentVersionBuildID: string; rampingVersionBuildID: string } };
    expect(described.routingConfig).toMatchObject({ currentVersionBuildID: 'v2', rampingVersionBuildID: '' });

    const { workflowId } = await agents.start(shipRun('B'));
    const result = await agents.result(workflowId);
    expect(observations(result)).toEqual([expect.objectContaining({ name: 'ship', status: 'ok', result: { shipped: 'B', by: 'v2' } })]);
    expect(await agents.workerVersion(workflowId)).toEqual({ deploymentName, buildId: 'v2', behavior: 'PINNED', override: null });
    expect(new Set(await taskBuildIds(workflowId))).toEqual(new Set([`${deploymentName}.v2`]));
  });

  it('an open session moves to release 2 before its next run; that run runs on release 2', async () => {
    const sessionWorkflowId = `session-${sessionId}`;
    const before = (await env.client.workflow.getHandle(sessionWorkflowId).describe()).runId;
    expect(await agents.workerVersion(sessionWorkflowId)).toMatchObject({ buildId: 'v1' });
    const second = await agents.sendMessage(sessionId, { content: 'ship S', plannerOptions: shipRun('S').plannerOptions });
    const result = await waitFor('the second session run', () => agents.result(second.workflowId).catch(() => undefined));
    expect(observations(result).map((o) => o.result)).toEqual([{ shipped: 'S', by: 'v2' }]);
    expect(await agents.workerVersion(second.workflowId)).toMatchObject({ deploymentName, buildId: 'v2', behavior: 'PINNED' });
    const after = await env.client.workflow.getHandle(sessionWorkflowId).describe();
    expect(after.runId).not.toBe(before);
    expect(await agents.workerVersion(sessionWorkflowId)).toMatchObject({ buildId: 'v2', behavior: 'PINNED' });
    // A run's result is ready a moment before its session takes it in.
    const statuses = await waitFor('the session took in its second run', async () => {
      const runs = (await agents.session(sessionId).status()).runs.map((r) => r.status);
      return runs.includes('running') ? undefined : runs;
    });
    expect(statuses).toEqual(['completed', 'completed']);
  });

  it("an operator's override keeps a session on release 1, and its runs with it", async () => {
    const pinnedSession = `pinned-${randomUUID().slice(0, 8)}`;
    const workflowId = `session-${pinnedSession}`;
    await agents.openSession(pinnedSession, { agent: 'release' });
    await temporalCli(
      'workflow', 'update-options', '--workflow-id', workflowId, '--versioning-override-behavior', 'pinned',
      '--versioning-override-deployment-name', deploymentName, '--versioning-override-build-id', 'v1',
    );
    const record = await agents.sendMessage(pinnedSession, { content: 'ship P', plannerOptions: shipRun('P').plannerOptions });
    // Release 1 code: the call waits for its approval.
    const [approval] = await approvals(record.workflowId);
    await agents.decide(record.workflowId, { decision: 'approve', toolCallId: approval!.toolCallId });
    expect(observations(await agents.result(record.workflowId)).map((o) => o.result)).toEqual([{ shipped: 'P', by: 'v1' }]);
    await agents.closeSession(pinnedSession);
    await env.client.workflow.getHandle(workflowId).result();
    expect(await agents.workerVersion(workflowId)).toMatchObject({ buildId: 'v1', override: { behavior: 'PINNED', deploymentName, buildId: 'v1' } });
    // Under the override Temporal reports no new target, so the session never tried to move: it
    // closed in its first execution. (Were a move attempted and held back by the override, the
    // session's `movedFrom` would stop a second attempt.)
    const described = await env.client.workflow.getHandle(workflowId).describe();
    expect(described.runId).toBe(described.raw.workflowExecutionInfo?.firstRunId);
  });

  it('the open run, approved now, completes on release 1 with release 1 code', async () => {
    await agents.decide(oldRun, { decision: 'approve', toolCallId: 'call_0_0', by: 'ops' });
    const result = await agents.result(oldRun);
    expect(result.status).toBe('completed');
    expect(observations(result)).toEqual([expect.objectContaining({ name: 'ship', status: 'ok', result: { shipped: 'A', by: 'v1' } })]);
    expect(await agents.workerVersion(oldRun)).toMatchObject({ deploymentName, buildId: 'v1', behavior: 'PINNED' });
    // Every workflow task of the run, before and after release 2 became current, ran on release 1.
    const stamps = await taskBuildIds(oldRun);
    expect(stamps.length).toBeGreaterThan(2);
    expect(new Set(stamps)).toEqual(new Set([`${deploymentName}.v1`]));
  });

  it('a pinned run that continues as new goes on on release 1 (the new execution inherits the version)', async () => {
    const firstExecution = (await env.client.workflow.getHandle(longRun).describe()).runId;
    await agents.decide(longRun, { decision: 'approve', toolCallId: 'call_0_0' });
    // Release 1 asks for an approval of the second call too; release 2 would have run it at once.
    const [second] = await approvals(longRun);
    const described = await env.client.workflow.getHandle(longRun).describe();
    expect(described.runId).not.toBe(firstExecution);
    expect(await agents.workerVersion(longRun)).toMatchObject({ deploymentName, buildId: 'v1', behavior: 'PINNED' });
    await agents.decide(longRun, { decision: 'approve', toolCallId: second!.toolCallId });
    const result = await agents.result(longRun);
    expect(observations(result).map((o) => o.result)).toEqual([{ shipped: 'C1', by: 'v1' }, { shipped: 'C2', by: 'v1' }]);
    expect(new Set(await taskBuildIds(longRun))).toEqual(new Set([`${deploymentName}.v1`]));
  });

  it('release 2 could not have taken the run over: its code fails to replay the run\'s history', async () => {
    const history: unknown = JSON.parse(await agents.exportHistory(oldRun));
    expect(await replayHistoryJson(history, { code: bundles.v1.code })).toMatchObject({ ok: true });
    expect(await replayHistoryJson(history, { code: bundles.v2.code })).toMatchObject({ ok: false, kind: 'nondeterminism' });
  });

  // Our dev server reports drainage within seconds (testing/dev-server.ts, drainageStatusArgs); a
  // server of its own (DURABLE_AGENTS_TEST_SERVER) may take Temporal's default minutes.
  const onOurDevServer = existingTestServer() ? it.skip : it;

  onOurDevServer('release 1 reports drained once its last pinned run closed', async () => {
    const { VersionDrainageStatus } = temporal.api.enums.v1;
    const drainage = await waitFor(
      'release 1 to report drained',
      async () => {
        const response = await env.client.workflowService.describeWorkerDeploymentVersion({
          namespace: env.namespace ?? 'default',
          deploymentVersion: { deploymentName, buildId: 'v1' },
        });
        const info = response.workerDeploymentVersionInfo?.drainageInfo;
        return info?.status === VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED ? info : undefined;
      },
      120_000,
    );
    expect(drainage.status).toBe(VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED);
    expect(await runningOn('v1')).toBe(0);
    const cli = await temporalCli('worker', 'deployment', 'describe-version', '--deployment-name', deploymentName, '--build-id', 'v1');
    expect(cli).toMatch(/DrainageStatus +drained/);
  }, 150_000);

  it('rolling back: with release 1 current again, new runs and the open session go back to it', async () => {
    await route('v1');
    const { workflowId } = await agents.start(shipRun('D'));
    const [call] = await approvals(workflowId);
    await agents.decide(workflowId, { decision: 'approve', toolCallId: call!.toolCallId });
    expect(observations(await agents.result(workflowId)).map((o) => o.result)).toEqual([{ shipped: 'D', by: 'v1' }]);

    // The session moved to release 2 earlier; it moves back before its next run.
    const third = await agents.sendMessage(sessionId, { content: 'ship T', plannerOptions: shipRun('T').plannerOptions });
    const [approval] = await approvals(third.workflowId);
    await agents.decide(third.workflowId, { decision: 'approve', toolCallId: approval!.toolCallId });
    expect(observations(await agents.result(third.workflowId)).map((o) => o.result)).toEqual([{ shipped: 'T', by: 'v1' }]);
    expect(await agents.workerVersion(`session-${sessionId}`)).toMatchObject({ buildId: 'v1', behavior: 'PINNED' });
  });
});

describe('turning versioning on: runs of unversioned workers are not pinned', () => {
  it('an open run of an unversioned worker moves to the first current version at its next task', async () => {
    const queue = uniqueTaskQueue('unversioned');
    const deployment = `agents-${randomUUID().slice(0, 8)}`;
    const onQueue = new AgentClient(env.client, queue, false);
    const unversioned = await startRelease('v1', { queue, deployment: null });
    const { workflowId } = await onQueue.start(shipRun('U'));
    await waitFor('the approval request', async () => ((await onQueue.pendingInputs(workflowId)).approvals.length > 0 ? true : undefined));
    expect(await onQueue.workerVersion(workflowId)).toEqual({ deploymentName: null, buildId: null, behavior: null, override: null });

    // The same code, now versioned; the unversioned worker keeps polling, and gets nothing more.
    await startRelease('v1', { queue, deployment });
    await route('v1', { deployment });
    await onQueue.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    const result = await onQueue.result(workflowId);
    unversioned.shutdown();
    expect(observations(result).map((o) => o.result)).toEqual([{ shipped: 'U', by: 'v1' }]);
    expect(await onQueue.workerVersion(workflowId)).toMatchObject({ deploymentName: deployment, buildId: 'v1' });
    const stamps = await taskBuildIds(workflowId);
    expect(stamps[0]).toBe('-.-');
    expect(stamps.at(-1)).toBe(`${deployment}.v1`);
  });
});
