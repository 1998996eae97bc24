import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Client } from '@temporalio/client';
import type { ActivityDependencies, ToolImplementation } from '../../activities';
import { DurableAgentsPlugin } from '../../worker/plugin';
import { AgentClient } from '../../client/agent-client';
import { devServerSafetyArgs, searchAttributeArgs } from '../../worker/dev-server';
import { buildTestBundle } from './test-bundle';
import { testAgents } from './agents';

export { buildTestBundle, testWorkflowsPath } from './test-bundle';

let runtimeInstalled = false;

/** Keeps SDK logs to warnings so test output stays readable. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger('WARN') });
}

/**
 * An existing Temporal server to run the tests against instead of a dev server per file
 * (`DURABLE_AGENTS_TEST_SERVER=host:port`, namespace `DURABLE_AGENTS_TEST_NAMESPACE`, default
 * `default`), e.g. a cluster on PostgreSQL. The namespace needs the AgentName / AgentStatus
 * search attributes (deploy/temporal/setup-namespace.sh registers them).
 */
export function existingTestServer(env: NodeJS.ProcessEnv = process.env): { address: string; namespace: string } | undefined {
  const address = env.DURABLE_AGENTS_TEST_SERVER?.trim();
  if (!address) return undefined;
  return { address, namespace: env.DURABLE_AGENTS_TEST_NAMESPACE?.trim() || 'default' };
}

/**
 * The dev server that jest's global setup started for the integration files that can share one
 * (`DURABLE_AGENTS_SHARED_TEST_SERVER=host:port`, namespace `default`). Files never share task
 * queues ({@link uniqueTaskQueue}), so they can run against it side by side.
 */
export function sharedTestServer(env: NodeJS.ProcessEnv = process.env): { address: string; namespace: string } | undefined {
  const address = env.DURABLE_AGENTS_SHARED_TEST_SERVER?.trim();
  return address ? { address, namespace: 'default' } : undefined;
}

/**
 * A real Temporal server for one test file: the existing server of {@link existingTestServer},
 * else the dev server global setup shares ({@link sharedTestServer}), else one of the file's own
 * ({@link createOwnTestEnv}). Its `teardown` closes the file's connections and leaves a shared
 * server running.
 */
export async function createTestEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const server = existingTestServer() ?? sharedTestServer();
  if (server) return TestWorkflowEnvironment.createFromExistingServer(server);
  return createOwnTestEnv();
}

/**
 * A dev server of the official CLI (TEMPORAL_CLI_PATH, set by global setup) on loopback, with
 * the version check off, for one test file (or global setup); `teardown` stops it. Falls back
 * to the SDK download.
 */
export async function createOwnTestEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const cliPath = process.env.TEMPORAL_CLI_PATH;
  return TestWorkflowEnvironment.createLocal({
    server: {
      ...(cliPath ? { executable: { type: 'existing-path', path: cliPath } } : {}),
      ip: '127.0.0.1',
      extraArgs: [...devServerSafetyArgs, ...searchAttributeArgs],
    },
  });
}

/** The workflow bundle built by global setup (or built now, when run without it). */
export async function workflowBundleOption(): Promise<{ codePath: string } | { code: string }> {
  const codePath = process.env.DURABLE_AGENTS_TEST_BUNDLE;
  if (codePath) return { codePath };
  const bundle = await buildTestBundle();
  return { code: bundle.code };
}

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
  /** Further worker options (e.g. `maxCachedWorkflows: 0`, so every workflow task replays the run). */
  options: Pick<WorkerOptions, 'maxCachedWorkflows'> = {},
): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundleOption(),
    // The plugin a user's worker gets.
    plugins: [new DurableAgentsPlugin({ agents: testAgents, tools, runtime })],
    ...options,
  });
}

/** An AgentClient bound to the test server and a task queue. */
export function agentClient(env: TestWorkflowEnvironment, taskQueue: string): AgentClient {
  return new AgentClient(env.client as Client, taskQueue);
}
