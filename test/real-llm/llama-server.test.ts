/**
 * Opt-in (`npm run test:real-llm`, not part of `npm test`): a real OpenAI-compatible server,
 * llama.cpp's llama-server with the SmolLM2-135M GGUF model, both provisioned from PyPI by
 * scripts/provision-llama-server.sh. One tool-using run goes model → streamed tool call →
 * approval → tool activity → second model turn → final. It checks the mechanics (the wire
 * format, the activity, the workflow path), not the quality of the model's answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createModelActivities } from '../../activities/model';
import type { AgentClient } from '../../client/agent-client';
import type { RunEvent } from '../../contracts';
import { findTestAgent } from '../support/agents';
import { allToolImplementations } from '../support/tools';
import { agentClient, createTestEnv, createTestWorker, uniqueTaskQueue, workflowBundleOption } from '../support/test-env';

const serverPath = process.env.LLAMA_SERVER;
const modelPath = process.env.LLAMA_MODEL;
const templatePath = process.env.LLAMA_CHAT_TEMPLATE;

let server: ChildProcess | undefined;
let serverLog = '';
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let agents: AgentClient;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Waits until llama-server answers /health with 200 (it loads the model first), or exits. */
async function untilHealthy(baseUrl: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama-server exited with ${child.exitCode}:\n${serverLog}`);
    const ok = await fetch(`${baseUrl}/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

beforeAll(async () => {
  if (!serverPath || !modelPath || !templatePath) throw new Error('LLAMA_SERVER, LLAMA_MODEL and LLAMA_CHAT_TEMPLATE are not set; run `npm run test:real-llm`');
  const port = await freePort();
  // A ChatML template with tool calls (see the provisioning script): llama-server then parses
  // <tool_call> blocks into streamed tool calls and, with tool_choice required, constrains them
  // by a grammar built from the tool's JSON Schema.
  const args = ['-m', modelPath, '--host', '127.0.0.1', '--port', String(port), '-c', '4096', '--jinja', '--chat-template-file', templatePath, '-np', '1'];
  server = spawn(serverPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (d: Buffer): void => void (serverLog = (serverLog + d.toString()).slice(-20_000));
  server.stdout?.on('data', keep);
  server.stderr?.on('data', keep);
  const baseUrl = `http://127.0.0.1:${port}`;
  await untilHealthy(baseUrl, server);

  env = await createTestEnv();
  const openai = new OpenAI({
    baseURL: `${baseUrl}/v1`,
    apiKey: 'none',
    maxRetries: 0,
    fetch: async (...[url, init]: Parameters<typeof fetch>) => {
      if (process.env.REAL_LLM_TRACE) process.stdout.write(`request: ${String(init?.body).slice(0, 4000)}\n`);
      return fetch(url, init);
    },
  });
  const taskQueue = uniqueTaskQueue('real-llm');
  worker = await createTestWorker(env, taskQueue, allToolImplementations(), createModelActivities({ openai, findAgent: findTestAgent }));
  running = worker.run();
  agents = agentClient(env, taskQueue);
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
  server?.kill('SIGTERM');
});

async function eventsOf(workflowId: string): Promise<RunEvent[]> {
  return (await agents.events(workflowId, 0, 1000)).events;
}

/** Waits for the run's first approval request (polling its event log), or fails when the run ends without one. */
async function firstApproval(workflowId: string): Promise<Extract<RunEvent, { type: 'approval_requested' }>> {
  for (;;) {
    const events = await eventsOf(workflowId);
    const approval = events.find((e): e is Extract<RunEvent, { type: 'approval_requested' }> => e.type === 'approval_requested');
    if (approval) return approval;
    const ended = events.find((e) => e.type === 'final' || e.type === 'run_terminated');
    if (ended) throw new Error(`the run ended without an approval request: ${JSON.stringify(events)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('a real OpenAI-compatible server (llama-server, SmolLM2-135M)', () => {
  it('runs model → streamed tool call → approval → tool → second model turn → final, and replays', async () => {
    const { workflowId } = await agents.start({
      agent: 'watchlist-llm-local',
      // One worked example first, as earlier conversation: a 135M model needs it to open a tool
      // call at all.
      history: [
        { role: 'user', content: 'Add AAPL to my watchlist.' },
        { role: 'assistant', toolCalls: [{ id: 'example_1', name: 'add_symbol', args: { symbol: 'AAPL' } }] },
        { role: 'tool', toolCallId: 'example_1', name: 'add_symbol', content: '{"added":"AAPL","watchlist":["TSLA","AAPL"]}' },
        { role: 'assistant', content: 'Added AAPL.' },
      ],
      messages: [{ role: 'user', content: 'Add NVDA to my watchlist.' }],
      sessionState: { watchlist: ['TSLA'] },
      // One tool round, then the Finalize turn (no tools) must answer in text.
      policy: { maxIterations: 1 },
    });
    const approval = await firstApproval(workflowId);
    expect(approval.name).toBe('add_symbol');
    await agents.decide(workflowId, { decision: 'approve', toolCallId: approval.toolCallId, by: 'real-llm test' });
    const result = await agents.result(workflowId);
    const events = await eventsOf(workflowId);
    const kinds = events.map((e) => e.type);

    expect(result.status).toBe('completed');
    expect(typeof result.final?.text).toBe('string');
    expect(result.cost.modelCalls.used).toBe(2);
    expect(kinds).toEqual(expect.arrayContaining(['approval_requested', 'approval_decided', 'tool_result', 'finalize_requested', 'final']));
    expect(kinds.indexOf('tool_result')).toBeLessThan(kinds.indexOf('final'));
    const toolResult = events.find((e) => e.type === 'tool_result');
    // Tokens counted from the server's usage, or the calls visibly unknown; never silently 0.
    expect(result.cost.tokens.used > 0 || result.cost.tokens.unknownCalls === 2).toBe(true);
    process.stdout.write(
      `real-llm result: ${JSON.stringify({ tool: approval.name, args: approval.args, toolResult, final: result.final?.text, tokens: result.cost.tokens, session: result.sessionState })}\n`,
    );

    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: await workflowBundleOption() }, history, workflowId);
  });
});
