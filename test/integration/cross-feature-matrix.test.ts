/**
 * Where two features meet: every operator operation on every kind of run. Each cell starts a
 * run of one kind, applies one operation the way ops tooling does, and expects the run to
 * complete (or end as the operation says) — or the operation to fail loudly with a documented
 * error. No cell may hang (the test timeout) or lose a decision.
 *
 * Run kinds: plain (scripted), LLM (model-planned, fake OpenAI-compatible server), a session's
 * run, a sub-agent's run, an encrypted run, a run that continued as new, and a run older than
 * its time budget (it waited for a human, or for the operator, longer than the budget).
 * Operations: rewind, fork, pause → resume, approve, kill, follow.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { createModelActivities } from '../../activities/model';
import { AgentClient } from '../../client/agent-client';
import type { RunEvent, RunInput, RunResult } from '../../contracts';
import { callTools, FakeOpenAIServer, say, toolCall } from '../../testing/fake-model';
import { EncryptionCodec } from '../../config/encryption';
import { forkRun } from '../../worker/fork';
import { DurableAgentsPlugin } from '../../worker/plugin';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { findTestAgent, testAgents } from '../support/agents';
import { createTestEnv, createTestWorker, forkBundleOption, inProcessWorkerOptions, uniqueTaskQueue, workflowBundleOption } from '../support/test-env';
import { allToolImplementations } from '../support/tools';
import { waitFor } from '../support/wait';

const kinds = ['plain', 'llm', 'session', 'sub-agent', 'encrypted', 'continued', 'older-than-budget'] as const;
const operations = ['rewind', 'fork', 'pause-resume', 'approve', 'kill', 'follow'] as const;
type Kind = (typeof kinds)[number];
type Operation = (typeof operations)[number];

/**
 * The time budget of `older-than-budget` runs; each cell of that kind waits longer than it. What
 * the run itself spends must stay under it: three 300 ms calls and the workflow tasks between them,
 * which beside a whole CI run's load once took more than 3 s (an `approve` cell ended
 * `time_budget`), so 6 s.
 */
const shortBudgetMs = 6_000;
/** Each tool call of a matrix run takes this long, so operations land mid-run. */
const stepMs = 300;
const turns = 3;

let env: TestWorkflowEnvironment;
let fake: FakeOpenAIServer;
const workers: { worker: Worker; running: Promise<void> }[] = [];
let plainAgents: AgentClient;
let encryptedAgents: AgentClient;
let encryptedTaskQueue: string;

beforeAll(async () => {
  env = await createTestEnv();
  fake = await FakeOpenAIServer.start();
  // Stateless, so rewinds and forks re-ask it freely: a step call until the run has `turns` tool results, then the answer.
  fake.respondWith((request) => {
    const done = (request.body?.messages ?? []).filter((m) => m.role === 'tool').length;
    return done < turns ? callTools(toolCall('step', { label: `s${done}`, ms: stepMs }, `c${done}`)) : say('done');
  });
  const openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
  const plainQueue = uniqueTaskQueue('matrix');
  const plain = await createTestWorker(env, plainQueue, allToolImplementations(), createModelActivities({ openai, findAgent: findTestAgent }));
  workers.push({ worker: plain, running: plain.run() });
  plainAgents = new AgentClient(env.client as Client, plainQueue);

  const keys = [{ id: 'matrix-key', key: randomBytes(32) }] as const;
  encryptedTaskQueue = uniqueTaskQueue('matrix-enc');
  const encrypted = await Worker.create({
    connection: env.nativeConnection,
    ...inProcessWorkerOptions,
    namespace: env.namespace ?? 'default',
    taskQueue: encryptedTaskQueue,
    workflowBundle: await workflowBundleOption(),
    plugins: [new DurableAgentsPlugin({ agents: testAgents, tools: allToolImplementations(), runtime: {}, encryption: [...keys] })],
  });
  workers.push({ worker: encrypted, running: encrypted.run() });
  const encryptedClient = new Client({ connection: env.connection, namespace: env.namespace ?? 'default', dataConverter: { payloadCodecs: [new EncryptionCodec([...keys])] } });
  encryptedAgents = new AgentClient(encryptedClient, encryptedTaskQueue);
});

afterAll(async () => {
  for (const { worker } of workers) worker.shutdown();
  await Promise.all(workers.map((w) => w.running));
  await fake?.close();
  await env?.teardown();
});

/** The run a cell operates on, and the client that reaches it. */
interface Subject {
  readonly agents: AgentClient;
  readonly workflowId: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function scriptSteps(approval: boolean): ScriptStep[] {
  // `transfer` of 500 needs approval (the toolbox's rule); `sleep` never does.
  const call = (n: number) => (approval ? { name: 'transfer', args: { to: `t${n}`, amount: 500 } } : { name: 'sleep', args: { ms: stepMs } });
  return [...Array.from({ length: turns }, (_, n) => ({ type: 'tool_calls' as const, calls: [{ ...call(n), args: call(n).args as never }] })), { type: 'final', text: 'done' }];
}

function scriptedRun(approval: boolean, extra: Partial<RunInput> = {}): RunInput {
  return { agent: 'scripted', messages: [{ role: 'user', content: 'follow the script' }], plannerOptions: { steps: scriptSteps(approval) }, ...extra };
}

/** Starts a run of `kind`; with `approval`, each of its tool calls waits for a human. */
async function startRun(kind: Kind, approval: boolean): Promise<Subject> {
  const confirmation = approval ? { confirmation: { all: true } } : {};
  switch (kind) {
    case 'plain':
      return { agents: plainAgents, ...(await plainAgents.start(scriptedRun(approval))) };
    case 'older-than-budget':
      return { agents: plainAgents, ...(await plainAgents.start(scriptedRun(approval, { policy: { timeBudgetMs: shortBudgetMs } }))) };
    case 'continued':
      // Continues as new after a few dozen events: at every turn boundary here.
      return { agents: plainAgents, ...(await plainAgents.start(scriptedRun(approval, { policy: { continueAsNewAfterEvents: 20 } }))) };
    case 'encrypted':
      return { agents: encryptedAgents, ...(await encryptedAgents.start(scriptedRun(approval))) };
    case 'llm':
      return { agents: plainAgents, ...(await plainAgents.start({ agent: 'toolbox-llm', messages: [{ role: 'user', content: 'run three steps' }], ...confirmation })) };
    case 'session': {
      const sessionId = `matrix-${Math.random().toString(36).slice(2, 10)}`;
      await plainAgents.openSession(sessionId, { agent: 'scripted', ...confirmation });
      const record = await plainAgents.sendMessage(sessionId, { content: 'follow the script', plannerOptions: { steps: scriptSteps(false) } });
      // sendMessage answers the run that will handle the message; the session starts it just after.
      await runStarted(record.workflowId);
      return { agents: plainAgents, workflowId: record.workflowId };
    }
    case 'sub-agent': {
      const { runId } = await plainAgents.start({
        agent: 'delegator',
        messages: [{ role: 'user', content: 'delegate' }],
        plannerOptions: { steps: [{ type: 'tool_calls', calls: [{ id: 'd1', name: 'delegate', args: { task: 'the script', steps: scriptSteps(approval) } as never }] }, { type: 'final', text: 'parent done' }] },
      });
      const workflowId = `sub-${runId}/d1`;
      await runStarted(workflowId);
      return { agents: plainAgents, workflowId };
    }
  }
}

/** Waits until a child run (a session's, a sub-agent's) exists on the server. */
async function runStarted(workflowId: string): Promise<void> {
  await waitFor(`run ${workflowId} to start`, async () => plainAgents.client.workflow.getHandle(workflowId).describe().then(() => true, () => undefined));
}

/** Approves every call the run asks about until it ends. */
async function approveUntilDone(subject: Subject): Promise<RunResult> {
  const { agents, workflowId } = subject;
  const result = agents.result(workflowId);
  let ended = false;
  void result.finally(() => (ended = true)).catch(() => undefined);
  while (!ended) {
    const pending = await agents.pendingInputs(workflowId, { subAgents: false }).catch(() => undefined);
    for (const approval of pending?.approvals ?? []) {
      await agents.decide(workflowId, { decision: 'approve', toolCallId: approval.toolCallId }).catch((err: { type?: string }) => {
        if (err.type !== 'run_ended' && err.type !== 'rejected') throw err;
      });
    }
    await sleep(100);
  }
  return result;
}

async function untilCallInFlight(subject: Subject): Promise<void> {
  await waitFor('a tool call in flight', async () => ((await subject.agents.status(subject.workflowId)).pendingCalls.some((c) => c.dispatched) ? true : undefined));
}

/** The first turn a rewind or fork of the run's latest execution can go back to after turn 0. */
async function laterTurn(subject: Subject): Promise<number> {
  const turnsThere = (await subject.agents.checkpoints(subject.workflowId)).map((c) => c.turn);
  return turnsThere.find((t) => t >= 1) ?? turnsThere[0] ?? 0;
}

const finalText = (kind: Kind): string => (kind === 'llm' ? 'done' : 'done');

/** Runs one operation on one kind of run and checks its outcome. */
async function cell(kind: Kind, operation: Operation): Promise<void> {
  const approval = operation === 'approve';
  const subject = await startRun(kind, approval);
  const { agents, workflowId } = subject;
  const olderThanBudget = kind === 'older-than-budget';
  switch (operation) {
    case 'approve': {
      if (olderThanBudget) {
        await waitFor('the first approval', async () => (await agents.pendingInputs(workflowId, { subAgents: false })).approvals[0]);
        await sleep(shortBudgetMs + 500); // waiting for a human is not charged
      }
      const result = await approveUntilDone(subject);
      expect(result).toMatchObject({ status: 'completed', final: { text: finalText(kind) } });
      expect(result.finalizeReason).toBeUndefined();
      expect(result.cost.toolCalls.used).toBe(turns);
      return;
    }
    case 'pause-resume': {
      await untilCallInFlight(subject);
      expect(await agents.pause(workflowId, { reason: 'matrix' })).toMatchObject({ status: 'paused' });
      if (olderThanBudget) await sleep(shortBudgetMs + 500); // paused time is not charged
      expect((await agents.status(workflowId)).status).toBe('paused');
      await agents.resume(workflowId, 'matrix');
      const result = await agents.result(workflowId);
      expect(result).toMatchObject({ status: 'completed', final: { text: finalText(kind) } });
      expect(result.finalizeReason).toBeUndefined();
      return;
    }
    case 'kill': {
      await untilCallInFlight(subject);
      await agents.kill(workflowId, { reason: 'matrix' });
      const result = await agents.result(workflowId);
      expect(result.status).toBe('terminated');
      return;
    }
    case 'follow': {
      const seen: RunEvent[] = [];
      for await (const event of agents.follow(workflowId)) seen.push(event);
      expect(seen.at(-1)).toMatchObject({ type: 'status_changed', to: 'completed' });
      const seqs = seen.map((e) => e.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(seen.filter((e) => e.type === 'tool_result')).toHaveLength(turns);
      return;
    }
    case 'rewind': {
      expect(await agents.result(workflowId)).toMatchObject({ status: 'completed' });
      if (olderThanBudget) await sleep(shortBudgetMs + 500);
      await agents.rewind(workflowId, { toTurn: await laterTurn(subject), reason: 'matrix' });
      const result = await agents.result(workflowId);
      expect(result).toMatchObject({ status: 'completed', final: { text: finalText(kind) } });
      expect(result.finalizeReason).toBeUndefined();
      return;
    }
    case 'fork': {
      expect(await agents.result(workflowId)).toMatchObject({ status: 'completed' });
      if (olderThanBudget) await sleep(shortBudgetMs + 500);
      const fork = await forkRun(agents.client, workflowId, { toTurn: await laterTurn(subject), ...(await forkBundleOption()) });
      const result = await agents.result(fork.workflowId);
      expect(result).toMatchObject({ status: 'completed', final: { text: finalText(kind) } });
      expect(result.finalizeReason).toBeUndefined();
      return;
    }
  }
}

describe('operations × run kinds', () => {
  const cells = kinds.flatMap((kind) => operations.map((operation) => [kind, operation] as const));
  it.each(cells)('%s run: %s', async (kind, operation) => {
    await cell(kind, operation);
  }, 60_000);
});
