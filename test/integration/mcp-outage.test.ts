/**
 * An MCP server that is down when a run first lists its tools: the run waits for it (its status
 * and log say so) instead of going on without the toolset, and uses its tools once it is back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import OpenAI from 'openai';
import { FakeOpenAIServer } from 'durable-agents/testing';
import { AgentClient } from 'durable-agents/client';
import { createAgentWorker, implementTool } from 'durable-agents/worker';
import type { RunEvent } from '../../contracts';
import { mcpHttpAgent, noteTool } from '../support/mcp/agents';
import { callStep, finalStep, observations } from '../support/scripts';
import { bundleOnce } from '../support/test-bundle';
import { createTestEnv, uniqueTaskQueue } from '../support/test-env';
import { waitFor } from '../support/wait';
import { freeLoopbackPort } from '../../testing/dev-server-port';

const everythingEntry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let fake: FakeOpenAIServer;
let server: ChildProcess | undefined;


/** Starts the reference server's streamable HTTP transport on `port` and waits until it listens. */
async function startHttpServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [everythingEntry, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let text = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the HTTP MCP server exited (${code}): ${text}`)));
  });
  return child;
}

beforeAll(async () => {
  env = await createTestEnv();
  bundle = await bundleOnce(require.resolve('../support/mcp/workflows'));
  fake = await FakeOpenAIServer.start();
});

afterAll(async () => {
  server?.kill();
  await fake?.close();
  await env?.teardown();
});

describe('MCP server outage', () => {
  it('waits for an MCP server that is down when the run lists its tools, then calls them', async () => {
    const port = await freeLoopbackPort();
    const taskQueue = uniqueTaskQueue('mcp-outage');
    const worker = await createAgentWorker({
      config: { address: env.address, namespace: env.namespace ?? 'default', taskQueue },
      connection: env.nativeConnection,
      workflowBundle: bundle,
      agents: [mcpHttpAgent],
      tools: [implementTool(noteTool, ({ text }) => ({ noted: text }))],
      openai: new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 }),
      // Nothing listens on the port yet: the server is down.
      mcpServers: { 'everything-http': { transport: 'http', url: `http://127.0.0.1:${port}/mcp` } },
    });
    const agents = new AgentClient(env.client, taskQueue, false);
    await worker.runUntil(async () => {
      const { workflowId } = await agents.start({
        agent: 'mcp-http',
        messages: [{ role: 'user', content: 'use the MCP tools' }],
        plannerOptions: { steps: [callStep({ name: 'echo', args: { message: 'back again' } }), finalStep()] },
      });
      const waiting = await waitFor('the run to wait for the MCP server', async () => {
        const status = await agents.status(workflowId);
        if (status.status !== 'running') throw new Error(`the run is ${status.status}`);
        return status.waitingFor;
      });
      expect(waiting).toMatchObject({ kind: 'mcp', name: 'everything-http', turn: 0, attempts: 3, errorType: 'mcp_unavailable' });

      server = await startHttpServer(port);
      const result = await agents.result(workflowId);
      expect(result.status).toBe('completed');
      expect(observations(result).map((o) => [o.name, o.status, o.result])).toEqual([['echo', 'ok', { content: [{ type: 'text', text: 'Echo: back again' }] }]]);
      const events: RunEvent[] = (await agents.events(workflowId, 0, 1000)).events;
      expect(events.filter((e) => e.type === 'mcp_waiting')).toEqual([expect.objectContaining({ toolset: 'everything', server: 'everything-http', attempts: 3 })]);
      expect(events.some((e) => e.type === 'note' && e.note.labels?.kind === 'mcp_available')).toBe(true);
      expect(events.some((e) => e.type === 'note' && e.note.labels?.kind === 'toolset_unavailable')).toBe(false);
      expect((await agents.status(workflowId)).waitingFor).toBeUndefined();
    });
  });
});
