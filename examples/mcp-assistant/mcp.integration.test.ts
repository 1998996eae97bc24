/** The MCP example as a user runs it: its worker, the reference server over stdio, a client approving a sum. */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { AgentClient } from 'durable-agents/client';
import { createTestEnv, uniqueTaskQueue } from '../../test/support/test-env';
import { createMcpAssistantWorker } from './worker';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

it('the scripted assistant remembers a fact, echoes through MCP and adds after approval', async () => {
  const taskQueue = uniqueTaskQueue('mcp-example');
  const worker = await createMcpAssistantWorker({ address: env.address, namespace: env.namespace ?? 'default', taskQueue }, { connection: env.nativeConnection });
  const agents = new AgentClient(env.client, taskQueue, false);
  await worker.runUntil(async () => {
    const { workflowId } = await agents.start({
      agent: 'mcp-assistant-scripted',
      messages: [{ role: 'user', content: 'remember that 2 + 3 = 5 and check it' }],
      plannerOptions: {
        steps: [
          { type: 'tool_calls', calls: [{ name: 'remember', args: { fact: '2 + 3 = 5' } }, { name: 'echo', args: { message: 'checking' } }, { name: 'get-sum', args: { a: 2, b: 3 } }] },
          { type: 'final', text: 'checked', reportObservations: true },
        ],
      },
    });
    for await (const e of agents.follow(workflowId)) {
      if (e.type === 'approval_requested') await agents.decide(workflowId, { decision: 'approve', toolCallId: e.toolCallId });
    }
    const result = await agents.result(workflowId);
    expect(result.sessionState).toEqual({ facts: ['2 + 3 = 5'] });
    expect(result.final?.structured).toEqual([
      expect.objectContaining({ name: 'remember', status: 'ok' }),
      expect.objectContaining({ name: 'echo', result: { content: [{ type: 'text', text: 'Echo: checking' }] } }),
      expect.objectContaining({ name: 'get-sum', result: { content: [{ type: 'text', text: 'The sum of 2 and 3 is 5.' }] } }),
    ]);
  });
});
