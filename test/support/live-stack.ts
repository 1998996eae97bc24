import type { Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createModelActivities, HttpDeltaPublisher } from '../../activities/model';
import { startAgentServer, type AgentServer } from '../../server';
import { callTools, FakeOpenAIServer, say, toolCall } from '../../testing/fake-model';
import type { AgentSuite } from './agent-suite';
import { findTestAgent } from './agents';
import { agentClient, createTestEnv, createTestWorker, uniqueTaskQueue } from './test-env';
import { allToolImplementations } from './tools';

/** One token per role, each held by `<role>-user`. */
export const liveTokens = { viewer: 'viewer-token-0123456789', operator: 'operator-token-0123456789', publisher: 'publisher-token-0123456789' } as const;

/** A test's live stack: an API server with role tokens and a worker whose model is a fake. */
export interface LiveStack {
  readonly suite: AgentSuite;
  readonly server: AgentServer;
  readonly fake: FakeOpenAIServer;
  close(): Promise<void>;
}

/**
 * Starts the API server (tokens {@link liveTokens}) and a worker of the test agents whose model
 * calls go to a fake OpenAI server answering by the conversation: it adds AAPL to the watchlist,
 * then says `answer`. Token deltas reach the server over HTTP, as a remote worker's do.
 */
export async function startLiveStack(prefix: string, answer: string): Promise<LiveStack> {
  const env = await createTestEnv();
  const taskQueue = uniqueTaskQueue(prefix);
  const suite: AgentSuite = { env, taskQueue, agents: agentClient(env, taskQueue) };
  const fake = await FakeOpenAIServer.start();
  fake.respondWith((request) => (request.body?.messages.at(-1)?.role === 'tool' ? say(answer) : callTools(toolCall('add_to_watchlist', { symbols: ['AAPL'] }))));
  const server = await startAgentServer({
    agents: suite.agents,
    auth: { localDev: false, tokens: (Object.keys(liveTokens) as (keyof typeof liveTokens)[]).map((role) => ({ name: `${role}-user`, role, token: liveTokens[role] })) },
  });
  const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
  const deltas = new HttpDeltaPublisher({ url: server.url, token: liveTokens.publisher });
  const worker: Worker = await createTestWorker(env, taskQueue, allToolImplementations(), createModelActivities({ openai, findAgent: findTestAgent, deltas }));
  const running = worker.run();
  return {
    suite,
    server,
    fake,
    close: async () => {
      await server.close();
      worker.shutdown();
      await running;
      await fake.close();
      await env.teardown();
    },
  };
}
