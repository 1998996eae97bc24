import OpenAI from 'openai';
import { createModelActivities, type ModelActivityDependencies } from '../../activities/model';
import { modelJudge } from '../../activities/model-judge';
import type { ToolImplementation } from '../../activities';
import type { TenantsConfig } from '../../contracts/tenant-settings';
import { FakeOpenAIServer } from '../../testing/fake-model';
import { agentSuite, type AgentSuite } from './agent-suite';
import { findTestAgent } from './agents';
import { allToolImplementations } from './tools';

/** What a test file of model-planned runs works with: an agent suite whose worker calls a fake model. */
export interface ModelSuite extends AgentSuite {
  readonly fake: FakeOpenAIServer;
}

/**
 * {@link agentSuite} for a test file of model-planned runs: the fake OpenAI server starts first,
 * and the worker's model activity calls it (with `model` settings such as `prices`), beside
 * `tools` (default the test tools); so does its `model-judge` approval judge, priced with the
 * same `prices`. Fields are readable inside tests.
 */
export function modelSuite(
  prefix: string,
  model: Omit<ModelActivityDependencies, 'openai' | 'findAgent'> = {},
  tools: () => readonly ToolImplementation[] = () => allToolImplementations(),
  /** Further options of the worker's plugin (e.g. `tenants`, the deployment's tenants file). */
  plugin: { readonly tenants?: TenantsConfig } = {},
): ModelSuite {
  let fake: FakeOpenAIServer | undefined;
  beforeAll(async () => {
    fake = await FakeOpenAIServer.start();
  });
  const fakeClient = (): OpenAI => new OpenAI({ baseURL: started().baseURL, apiKey: 'test-key', maxRetries: 0 });
  const suite = agentSuite(prefix, tools, {
    runtime: () => createModelActivities({ ...model, openai: fakeClient(), findAgent: findTestAgent }),
    // `model-judge`: a judge of approval rules that asks the fake model, priced like the planner's calls.
    worker: { plugin: { model, ...plugin, approvalJudges: { 'model-judge': (request) => modelJudge({ openai: fakeClient(), model: 'gpt-4o-mini' })(request) } } },
  });
  afterAll(() => fake?.close());
  const started = (): FakeOpenAIServer => {
    if (!fake) throw new Error('the fake model server is not ready: use it inside a test');
    return fake;
  };
  return Object.defineProperty(suite, 'fake', { get: started }) as ModelSuite;
}
