/**
 * Opt-in (`npm run test:real-llm`, not part of `npm test`): a real OpenAI-compatible server,
 * llama.cpp's llama-server with the SmolLM2-135M GGUF model, both provisioned from PyPI by
 * scripts/provision-llama-server.sh. One tool-using run goes model → streamed tool call →
 * approval → tool activity → second model turn → final; then that recorded run is evaluated with
 * changed instructions (evaluateRuns). It checks the mechanics (the wire format, the activity, the
 * workflow path, the evaluation), not the quality of the model's answers.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createModelActivities } from '../../activities/model';
import type { AgentClient } from '../../client/agent-client';
import type { RunEvent } from '../../contracts';
import { evaluateRuns } from '../../testing/eval';
import { findTestAgent, testAgents } from '../support/agents';
import { allToolImplementations } from '../support/tools';
import { agentClient, createTestEnv, createTestWorker, uniqueTaskQueue, workflowBundleOption } from '../support/test-env';
import { launchServer, type LaunchedServer } from './llama-launcher';

const serverPath = process.env.LLAMA_SERVER;
const modelPath = process.env.LLAMA_MODEL;
const templatePath = process.env.LLAMA_CHAT_TEMPLATE;

let server: LaunchedServer | undefined;
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void> | undefined;
let agents: AgentClient;
let openai: OpenAI;
/** The system prompt of every chat request the model server got, in order. */
const systemPrompts: string[] = [];
/** The history of the first test's run, as `agentctl history export` writes it. */
let recordedRun: string | undefined;

// Deadlines of the waits on llama-server and the run, far below jest's testTimeout, so a stuck wait
// fails with a message (and the server's output) instead of the bare timeout.
const healthyWithinMs = 120_000;
const approvalWithinMs = 240_000;
const resultWithinMs = 240_000;
const shutdownWithinMs = 30_000;
const envStartWithinMs = 120_000;

/** `promise`, or a rejection naming `what` (with how llama-server ended and its last output) after `ms`. */
async function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const state = server?.ended() ? `llama-server ${server.ended()}` : 'llama-server is running';
      reject(new Error(`${what} took longer than ${ms / 1000} s (${state}); its last output:\n${server?.logTail() ?? '(none)'}`));
    }, ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

beforeAll(async () => {
  if (!serverPath || !modelPath || !templatePath) throw new Error('LLAMA_SERVER, LLAMA_MODEL and LLAMA_CHAT_TEMPLATE are not set; run `npm run test:real-llm`');
  // A ChatML template with tool calls (see the provisioning script): llama-server then parses
  // <tool_call> blocks into streamed tool calls and, with tool_choice required, constrains them
  // by a grammar built from the tool's JSON Schema.
  server = await launchServer({
    name: 'llama-server',
    command: serverPath,
    args: (port) => ['-m', modelPath, '--host', '127.0.0.1', '--port', String(port), '-c', '4096', '--jinja', '--chat-template-file', templatePath, '-np', '1'],
    healthyWithinMs,
  });
  const baseUrl = server.baseUrl;

  env = await within('the Temporal dev server start', envStartWithinMs, createTestEnv());
  openai = new OpenAI({
    baseURL: `${baseUrl}/v1`,
    apiKey: 'none',
    maxRetries: 0,
    fetch: async (...[url, init]: Parameters<typeof fetch>) => {
      if (process.env.REAL_LLM_TRACE) process.stdout.write(`request: ${String(init?.body).slice(0, 4000)}\n`);
      const body = JSON.parse(String(init?.body ?? '{}')) as { messages?: { role: string; content?: unknown }[] };
      const system = body.messages?.find((m) => m.role === 'system');
      if (system) systemPrompts.push(String(system.content));
      return fetch(url, init);
    },
  });
  const taskQueue = uniqueTaskQueue('real-llm');
  worker = await createTestWorker(env, taskQueue, allToolImplementations(), createModelActivities({ openai, findAgent: findTestAgent }));
  running = worker.run();
  agents = agentClient(env, taskQueue);
});

afterAll(async () => {
  try {
    worker?.shutdown();
    await within('the worker shutdown', shutdownWithinMs, running ?? Promise.resolve());
    await within('the test environment teardown', shutdownWithinMs, env?.teardown() ?? Promise.resolve());
  } finally {
    await server?.stop();
  }
});

async function eventsOf(workflowId: string): Promise<RunEvent[]> {
  return (await agents.events(workflowId, 0, 1000)).events;
}

/** Waits for the run's first approval request (polling its event log), or fails when the run ends without one, or at the deadline. */
async function firstApproval(workflowId: string): Promise<Extract<RunEvent, { type: 'approval_requested' }>> {
  const deadline = Date.now() + approvalWithinMs;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`no approval request within ${approvalWithinMs / 1000} s; events: ${JSON.stringify(await eventsOf(workflowId))}; llama-server's last output:\n${server?.logTail()}`);
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
    const result = await within('the run', resultWithinMs, agents.result(workflowId));
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
    recordedRun = await agents.exportHistory(workflowId);
  });

  it('evaluates changed instructions on that recorded run: the model gets them, tools and the approval come from the recording', async () => {
    if (!recordedRun) throw new Error('the first test recorded no run');
    const instructions = 'You keep a stock watchlist. When the user names a stock to add, call add_symbol with it. Then confirm in one short sentence.';
    const asked = systemPrompts.length;
    const report = await within(
      'the evaluation',
      resultWithinMs,
      evaluateRuns({
        histories: [{ source: 'real-llm-run.json', json: JSON.parse(recordedRun) as unknown }],
        workflowBundle: await workflowBundleOption(),
        agents: testAgents,
        openai,
        change: { instructions },
        server: { address: env.address, namespace: env.namespace ?? 'default' },
        runTimeoutMs: resultWithinMs,
      }),
    );
    const [run] = report.runs;
    process.stdout.write(`real-llm evaluation: ${JSON.stringify({ divergence: run?.divergence, unrecorded: run?.unrecorded, final: run?.candidate.final?.text, totals: report.totals })}\n`);
    expect(run?.error).toBeUndefined();
    expect(run?.candidate.status).toBe('completed');
    // Every model call of the candidate had the changed instructions as its system prompt.
    const candidatePrompts = systemPrompts.slice(asked);
    expect(candidatePrompts.length).toBe(run?.candidate.totals?.modelCalls);
    expect(candidatePrompts.every((p) => p.startsWith(instructions))).toBe(true);
    // Whatever the small model chose, the report agrees with itself: no divergence means the same calls.
    if (!run?.divergence) expect(run?.candidate.totals?.toolCalls).toBe(run?.recorded.totals?.toolCalls);
    else expect(['tool_choice', 'arguments']).toContain(run.divergence.kind);
    // A call the recording answers ran no tool: a repeated add_symbol got the recorded result.
    const repeated = run?.unrecorded.length === 0 && !run.divergence;
    if (repeated) expect(run.answeredCalls).toBe(1);
  });
});
