import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createModelActivities, type ModelActivityDependencies } from '../../activities/model';
import type { AgentClient } from '../../client/agent-client';
import { FakeOpenAIServer } from '../../testing/fake-model';
import { findTestAgent } from './agents';
import { agentClient, createTestEnv, createTestWorker, uniqueTaskQueue } from './test-env';
import { allToolImplementations } from './tools';

/** What a test file of model-planned runs works with: a dev server, a fake model, a worker and a client. */
export interface ModelSuite {
  readonly env: TestWorkflowEnvironment;
  readonly fake: FakeOpenAIServer;
  readonly agents: AgentClient;
}

/**
 * Registers beforeAll / afterAll for one test file of model-planned runs: the shared dev server,
 * the fake OpenAI server, one worker of the test agents whose model activity calls the fake
 * (with `model` settings such as `prices`), and a client. Fields are readable inside tests.
 */
export function modelSuite(prefix: string, model: Omit<ModelActivityDependencies, 'openai' | 'findAgent'> = {}): ModelSuite {
  let env: TestWorkflowEnvironment | undefined;
  let fake: FakeOpenAIServer | undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  let agents: AgentClient | undefined;

  beforeAll(async () => {
    env = await createTestEnv();
    fake = await FakeOpenAIServer.start();
    const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
    const taskQueue = uniqueTaskQueue(prefix);
    worker = await createTestWorker(env, taskQueue, allToolImplementations(), createModelActivities({ ...model, openai, findAgent: findTestAgent }));
    running = worker.run();
    agents = agentClient(env, taskQueue);
  });

  afterAll(async () => {
    worker?.shutdown();
    await running;
    await fake?.close();
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
    get fake() {
      return ready(fake, 'the fake model server');
    },
    get agents() {
      return ready(agents, 'the client');
    },
  };
}
