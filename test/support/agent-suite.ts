import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { ActivityDependencies, ToolImplementation } from '../../activities';
import { allToolImplementations } from './tools';
import type { AgentClient } from '../../client/agent-client';
import { agentClient, createTestEnv, createTestWorker, uniqueTaskQueue } from './test-env';

/** What an integration test file runs against: a dev server, a worker, a client. */
export interface AgentSuite {
  readonly env: TestWorkflowEnvironment;
  readonly agents: AgentClient;
  readonly taskQueue: string;
}

/**
 * Registers beforeAll / afterAll for one integration test file: a real Temporal server (the
 * shared one, with `ownNamespace` in a namespace of the file's own: see createTestEnv), one worker for the
 * file's task queue (running until the file ends) and a client. Fields are readable inside tests.
 */
export function agentSuite(
  prefix: string,
  tools: () => readonly ToolImplementation[] = () => allToolImplementations(),
  options: {
    readonly ownNamespace?: boolean;
    readonly serverArgs?: readonly string[];
    /** The worker's model activity and its settings, made once the server is up (default none). */
    readonly runtime?: () => ActivityDependencies['runtime'];
    /** Further options of the file's worker (e.g. `debugMode: false`: workflows on a thread of their own, see inProcessWorkerOptions). */
    readonly worker?: Parameters<typeof createTestWorker>[4];
    /** Further options of the worker's plugin (e.g. `tenants`, the deployment's tenants file). */
    readonly plugin?: NonNullable<Parameters<typeof createTestWorker>[4]>['plugin'];
  } = {},
): AgentSuite {
  let env: TestWorkflowEnvironment | undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let agents: AgentClient | undefined;
  const taskQueue = uniqueTaskQueue(prefix);

  beforeAll(async () => {
    env = await createTestEnv(options);
    worker = await createTestWorker(env, taskQueue, tools(), options.runtime?.(), options.plugin ? { ...options.worker, plugin: { ...options.worker?.plugin, ...options.plugin } } : options.worker);
    running = worker.run();
    agents = agentClient(env, taskQueue);
  });

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await env?.teardown();
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not ready: use it inside a test`);
    return value;
  };
  return {
    get env() {
      return ready(env, 'the test environment');
    },
    get agents() {
      return ready(agents, 'the client');
    },
    taskQueue,
  };
}
