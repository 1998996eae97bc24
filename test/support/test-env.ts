import { randomUUID } from 'node:crypto';
import { testApprovalJudges } from './approval-judges';
import { readFile } from 'node:fs/promises';
import { Worker, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Client } from '@temporalio/client';
import type { ActivityDependencies, ToolImplementation } from '../../activities';
import { DurableAgentsPlugin, type DurableAgentsPluginOptions } from '../../worker/plugin';
import { AgentClient } from '../../client/agent-client';
import { buildTestBundle, buildTestForkBundle } from './test-bundle';
import { testAgents } from './agents';
import { createOwnTestEnv, existingTestServer, ownNamespaceOn, quietRuntime, sharedTestServer } from './test-server';

export { buildTestBundle, testWorkflowsPath } from './test-bundle';
export { createOwnTestEnv, existingTestServer, quietRuntime, sharedTestServer } from './test-server';

/**
 * A real Temporal server for one test file: the existing server of {@link existingTestServer},
 * else the dev server global setup shares ({@link sharedTestServer}), else one of the file's own
 * ({@link createOwnTestEnv}). Its `teardown` closes the file's connections and leaves a shared
 * server running. `ownNamespace`: on the shared dev server, a namespace of the file's own
 * ({@link ownNamespaceOn}), for files whose assertions cover the whole namespace (every waiting
 * run in a list, in metrics), which other files' runs would change while they run. `serverArgs`:
 * a dev server of the file's own started with these further arguments (e.g.
 * `--dynamic-config-value` limits).
 */
export async function createTestEnv(options: { readonly ownNamespace?: boolean; readonly serverArgs?: readonly string[] } = {}): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  // A server with arguments of its own (e.g. lowered limits) is always the file's own.
  if (options.serverArgs) return createOwnTestEnv(options.serverArgs);
  const existing = existingTestServer();
  if (existing) return TestWorkflowEnvironment.createFromExistingServer(existing);
  const shared = sharedTestServer();
  if (shared) return options.ownNamespace ? ownNamespaceOn(shared.address) : TestWorkflowEnvironment.createFromExistingServer(shared);
  return createOwnTestEnv();
}

/** The workflow bundle built by global setup (or built now, when run without it). */
export async function workflowBundleOption(): Promise<{ codePath: string } | { code: string }> {
  const codePath = process.env.DURABLE_AGENTS_TEST_BUNDLE;
  if (codePath) return { codePath };
  const bundle = await buildTestBundle();
  return { code: bundle.code };
}

let forkBundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/**
 * forkRun's option for the test suite's workflows: the bundle global setup built (or one built
 * now, once per file, when run without it). With `workflowsPath`, every fork bundles anew.
 */
export function forkBundleOption(): Promise<{ workflowBundle: WorkflowBundleWithSourceMap }> {
  const path = process.env.DURABLE_AGENTS_TEST_FORK_BUNDLE;
  forkBundle ??= path ? readFile(path, 'utf8').then((json) => JSON.parse(json) as WorkflowBundleWithSourceMap) : buildTestForkBundle();
  return forkBundle.then((workflowBundle) => ({ workflowBundle }));
}

/**
 * What every worker a test file starts in its own process gets. `debugMode`: the workflow sandbox
 * runs on the file's own thread, not on a worker thread of its own. It is the same reusable V8
 * context (the SDK's replay worker runs workflows this way too), without a thread that loads the
 * SDK again: a worker's start and first run cost about 175 ms of CPU instead of 620 (measured on
 * two cores), and the suite starts some ninety. It also lifts the 5 s deadlock timeout, which no
 * test relies on. Workers in child processes (./worker-process), the package test, the demo and
 * the benchmark keep the thread a user's worker has.
 */
export const inProcessWorkerOptions = { debugMode: true } satisfies Partial<WorkerOptions>;

/** A fresh task queue name, so test cases never share workers. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

/**
 * Creates a worker for the agent workflows and the given tools on a task queue; `runtime`
 * gives LLM suites their model activity (default none).
 */
export async function createTestWorker(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  tools: readonly ToolImplementation[],
  runtime: ActivityDependencies['runtime'] = {},
  /**
   * Further worker options (e.g. `maxCachedWorkflows: 0`, so every workflow task replays the run; `debugMode: false`, see {@link inProcessWorkerOptions}),
   * and `plugin`: judges beside the test judges, model settings (`prices` also price judges' model calls), the deployment's `tenants` file.
   */
  options: Pick<WorkerOptions, 'maxCachedWorkflows' | 'debugMode'> & { readonly plugin?: Pick<DurableAgentsPluginOptions, 'approvalJudges' | 'model' | 'tenants'> } = {},
): Promise<Worker> {
  const { plugin, ...workerOptions } = options;
  return Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundleOption(),
    // The plugin a user's worker gets.
    plugins: [new DurableAgentsPlugin({ agents: testAgents, tools, runtime, ...plugin, approvalJudges: { ...testApprovalJudges, ...plugin?.approvalJudges } })],
    ...inProcessWorkerOptions,
    ...workerOptions,
  });
}

/** An AgentClient bound to the test server and a task queue. */
export function agentClient(env: TestWorkflowEnvironment, taskQueue: string): AgentClient {
  return new AgentClient(env.client as Client, taskQueue);
}
