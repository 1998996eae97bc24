import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { AgentClient } from 'durable-agents/client';
import { createAgentWorker, DurableAgentsPlugin, implementTool } from 'durable-agents/worker';
import { docsAgent, docsSearch, webAgent, webSearch } from '../support/two-agents/agents';
import { callStep, finalStep, observations, scriptedInput } from '../support/scripts';
import { createTestEnv, inProcessWorkerOptions, uniqueTaskQueue } from '../support/test-env';
import { waitFor } from '../support/wait';

const workflowsPath = require.resolve('../support/two-agents/workflows');
const tools = [
  implementTool(docsSearch, ({ query }) => ({ from: 'docs', query })),
  implementTool(webSearch, ({ q, limit }) => ({ from: 'web', q, limit })),
];

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

function searchScript(agent: 'docs' | 'web', args: Record<string, unknown>): ReturnType<typeof scriptedInput> {
  return { ...scriptedInput([callStep({ name: 'search', args }), finalStep()]), agent };
}

/** A worker made by createAgentWorker for the docs and web agents, and a client of its queue. */
async function docsAndWebWorker(prefix: string): Promise<{ worker: Worker; agents: AgentClient }> {
  const taskQueue = uniqueTaskQueue(prefix);
  const worker = await createAgentWorker({
    config: { address: env.address, namespace: env.namespace ?? 'default', taskQueue },
    connection: env.nativeConnection,
    workflowsPath,
    agents: [docsAgent, webAgent],
    tools,
    openai: null,
  });
  return { worker, agents: new AgentClient(env.client, taskQueue, false) };
}

describe('the library as a user runs it: own agents, own workflows module, own worker', () => {
  it('two agents with a tool of the same name each run their own implementation (createAgentWorker bundles workflowsPath)', async () => {
    const { worker, agents } = await docsAndWebWorker('library');
    await worker.runUntil(async () => {
      const docs = await agents.start(searchScript('docs', { query: 'pause' }));
      const web = await agents.start(searchScript('web', { q: 'temporal' }));
      const [docsResult, webResult] = await Promise.all([agents.result(docs.workflowId), agents.result(web.workflowId)]);
      expect(observations(docsResult)[0]).toMatchObject({ status: 'ok', result: { from: 'docs', query: 'pause' } });
      expect(observations(webResult)[0]).toMatchObject({ status: 'ok', result: { from: 'web', q: 'temporal', limit: 3 } });
      const scheduled = async (id: string): Promise<(string | null | undefined)[]> =>
        ((await env.client.workflow.getHandle(id).fetchHistory()).events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : []));
      expect(await scheduled(docs.workflowId)).toEqual(['docs/search']);
      expect(await scheduled(web.workflowId)).toEqual(['web/search']);
    });
  });

  it('DurableAgentsPlugin on a plain Worker.create registers the namespaced activities and the bundler settings', async () => {
    const taskQueue = uniqueTaskQueue('plugin');
    const plugin = new DurableAgentsPlugin({ agents: [docsAgent, webAgent], tools, openai: null });
    // `search` has two implementations, so only the namespaced types exist for it.
    expect(plugin.activityTypes).toEqual(['callModel', 'docs/search', 'session.deliverMessage', 'tenants.join', 'tenants.sweep', 'web/search']);
    const worker = await Worker.create({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, workflowsPath, plugins: [plugin], ...inProcessWorkerOptions });
    const agents = new AgentClient(env.client, taskQueue, false);
    await worker.runUntil(async () => {
      const { workflowId } = await agents.start(searchScript('web', { q: 'plugins', limit: 1 }));
      expect(observations(await agents.result(workflowId))[0]).toMatchObject({ status: 'ok', result: { from: 'web', q: 'plugins', limit: 1 } });
    });
  });

  it("a run of a tenant on a worker with a tenants file whose workflows module lacks agentTenantAccount says so in its status, naming the account; a kill ends it", async () => {
    const taskQueue = uniqueTaskQueue('no-account');
    const plugin = new DurableAgentsPlugin({ agents: [docsAgent, webAgent], tools, openai: null, tenants: {} });
    const worker = await Worker.create({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, workflowsPath, plugins: [plugin], ...inProcessWorkerOptions });
    const agents = new AgentClient(env.client, taskQueue, false);
    await worker.runUntil(async () => {
      const { workflowId } = await agents.start({ ...searchScript('web', { q: 'x' }), tenant: 'lone' });
      const wait = await waitFor('the run says its account is silent', async () => {
        const { waitingFor } = await agents.status(workflowId);
        return waitingFor?.errorType === 'quota_account_silent' ? waitingFor : undefined;
      });
      expect(wait).toMatchObject({ kind: 'quota', name: 'lone', error: expect.stringContaining('(workflow durable-agents-tenant:lone) has not answered: its worker must run the workflow type agentTenantAccount') });
      await agents.kill(workflowId, { reason: 'no account' });
      expect(await agents.result(workflowId)).toMatchObject({ status: 'terminated' });
      await env.client.workflow.getHandle('durable-agents-tenant:lone').terminate('the test is over');
    });
  });

  it('a run of an agent the bundle does not have fails at once with unknown_agent, naming the bundle\'s agents', async () => {
    const { worker, agents } = await docsAndWebWorker('unknown');
    await worker.runUntil(async () => {
      const { workflowId } = await agents.start({ ...searchScript('docs', { query: 'x' }), agent: 'watchlist' });
      const failure = await env.client.workflow.getHandle(workflowId).result().catch((err: unknown) => err as { cause?: { type?: string; message?: string } });
      expect(failure).toMatchObject({ cause: { type: 'unknown_agent', message: 'agent "watchlist" is not in this bundle; its agents: docs, web' } });
    });
  });

  it('a worker whose agent has a tool without implementation is refused at creation, naming agent and tool', () => {
    expect(() => new DurableAgentsPlugin({ agents: [docsAgent, webAgent], tools: [tools[0]!], openai: null })).toThrow(
      "agent web uses tool search but the 1 given implementation(s) named search belong to other agents' definitions; pass implementTool(<this agent's search definition>, fn)",
    );
  });
});
