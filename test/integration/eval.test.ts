/**
 * Counterfactual replay on a real dev server and worker with the fake model: two runs of an LLM
 * agent are recorded as users record them (run, then export the history), then candidates are
 * evaluated against them. The recorded tools have a side effect (a line in a file) that an
 * evaluation must never repeat. Last, the runs of sessions whose messages took each `whenBusy`
 * decision are recorded and read.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import OpenAI from 'openai';
import { implementTool, type ToolImplementation } from '../../activities';
import type { AgentClient } from '../../client/agent-client';
import { addToWatchlistTool, getQuoteTool } from '../../examples/watchlist/agent';
import { callTools, say, toolCall, type FakeOpenAIServer, type FakeStep } from '../../testing/fake-model';
import { evaluateRuns, formatEvalJunit, type EvalChange, type EvaluationReport } from '../../testing/eval';
import { testAgents } from '../support/agents';
import { modelSuite } from '../support/model-suite';
import { workflowBundleOption } from '../support/test-env';
import { allToolImplementations } from '../support/tools';
import { xmlProblem } from '../support/well-formed-xml';
import { replayAgentHistories } from '../../testing/replay-histories';
import { agentModuleForTests, runAgentctl, runAgentctlIn, testAgentModule } from '../support/agentctl-eval';
import { testWorkflowCodeArgs } from '../support/agentctl-cli';
import { testTempDir } from '../support/temp-dir';

const dir = testTempDir('eval-');
const recorded = join(dir, 'recorded');
const sideEffects = join(dir, 'side-effects.log');

/** The watchlist tools with a side effect each: a line in the file per call that ran. */
function tracedTools(): ToolImplementation[] {
  const note = (line: string): void => writeFileSync(sideEffects, `${line}\n`, { flag: 'a' });
  return [
    implementTool(addToWatchlistTool, ({ symbols }, ctx) => {
      note(`add ${symbols.join(',')}`);
      ctx.session.set('watchlist', symbols);
      return { added: symbols, watchlist: symbols };
    }),
    implementTool(getQuoteTool, ({ symbol }) => {
      note(`quote ${symbol}`);
      return { symbol, price: symbol === 'AAPL' ? 123 : 456, currency: 'USD' };
    }),
  ];
}

const lines = (): string[] => readFileSync(sideEffects, 'utf8').split('\n').filter(Boolean);

/** The model's answers of the two recorded runs: add AAPL (approved), quote it, answer; quote MSFT, answer. */
const addAndQuote = (quoted = 'AAPL'): FakeStep[] => [callTools(toolCall('add_to_watchlist', { symbols: ['AAPL'] })), callTools(toolCall('get_quote', { symbol: quoted })), say(`AAPL trades at 123.`)];
const quoteMsft = (): FakeStep[] => [callTools(toolCall('get_quote', { symbol: 'MSFT' })), say('MSFT trades at 456.')];

const suite = modelSuite('eval', {}, () => [...tracedTools(), ...allToolImplementations()]);
let env: TestWorkflowEnvironment;
let fake: FakeOpenAIServer;
let openai: OpenAI;
let agents: AgentClient;

async function approveWhenAsked(workflowId: string): Promise<void> {
  for (;;) {
    const { approvals } = await agents.pendingInputs(workflowId, { subAgents: false });
    if (approvals[0]) {
      await agents.decide(workflowId, { decision: 'approve', toolCallId: approvals[0].toolCallId });
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function record(name: string, content: string, steps: FakeStep[], approve: boolean): Promise<void> {
  fake.script(...steps);
  const { workflowId } = await agents.start({ agent: 'watchlist-llm', messages: [{ role: 'user', content }], sessionState: { watchlist: [] } });
  if (approve) await approveWhenAsked(workflowId);
  await agents.result(workflowId);
  writeFileSync(join(recorded, `${name}.json`), await agents.exportHistory(workflowId));
}

beforeAll(async () => {
  ({ env, agents, fake } = suite);
  openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
  mkdirSync(recorded);
  await record('1-add-aapl', 'Add AAPL to my watchlist and quote it', addAndQuote(), true);
  await record('2-quote-msft', 'What does MSFT trade at?', quoteMsft(), false);
  expect(lines()).toEqual(['add AAPL', 'quote AAPL', 'quote MSFT']);
  fake.reset();
});


/** Example prices of the evaluation's worker (not any provider's): the candidate's cost is in money, the recording's was not priced. */
const prices = { currency: 'USD', models: { 'candidate-model': { inputPerMillion: 1_000, outputPerMillion: 2_000 } } };

async function evaluate(change: EvalChange = {}): Promise<EvaluationReport> {
  return evaluateRuns({
    model: { prices },
    histories: [recorded],
    workflowBundle: await workflowBundleOption(),
    agents: testAgents,
    openai,
    change,
    server: { address: env.address, namespace: env.namespace ?? 'default' },
    judge: (r, c) => ({ pass: r.final?.text === c.final?.text, score: r.final?.text === c.final?.text ? 1 : 0 }),
  });
}

test('a candidate that decides as recorded: no divergence, the same totals, nothing re-run', async () => {
  fake.script(...addAndQuote(), ...quoteMsft());
  const report = await evaluate({ model: 'candidate-model' });
  expect(fake.errors).toEqual([]);
  expect(fake.chatRequests.map((r) => r.body?.model)).toEqual(Array(5).fill('candidate-model'));
  expect(report.runs.map((r) => [r.source.split('/').pop(), r.divergence, r.unrecorded, r.sameFinal, r.judge?.pass, r.answeredCalls])).toEqual([
    ['1-add-aapl.json', undefined, [], true, true, 2],
    ['2-quote-msft.json', undefined, [], true, true, 1],
  ]);
  const { cost: candidateCost, ...candidate } = report.totals.candidate;
  const { cost: recordedCost, ...recordedTotals } = report.totals.recorded;
  expect(candidate).toEqual(recordedTotals);
  expect(recordedTotals).toEqual({ runs: 2, turns: 5, toolCalls: 3, modelCalls: 5, tokens: 150 });
  // Five calls of 20 prompt and 10 completion tokens (the fake's usage) at the example prices.
  expect([recordedCost, candidateCost.USD]).toEqual([{}, expect.closeTo(0.2, 9)]);
  expect(report.runs[0]?.candidate.totals?.cost).toEqual({ amount: expect.closeTo(0.12, 9), currency: 'USD' });
  expect(lines()).toEqual(['add AAPL', 'quote AAPL', 'quote MSFT']);
});

test('a recorded run evaluated under changed approval rules: the call a person approved is now denied by a rule, asked of no one, and the model reads the rule', async () => {
  fake.reset();
  fake.script(...addAndQuote(), ...quoteMsft());
  const approvalRules = { version: 'no-adds-1', rules: [{ id: 'no-adds', effect: 'deny' as const, tools: ['add_to_watchlist'], reason: 'watchlists are frozen' }] };
  const report = await evaluate({ approvalRules });
  expect(fake.errors).toEqual([]);
  const [first] = report.runs;
  expect(first?.candidate.input.confirmation?.rules).toEqual(approvalRules);
  // No person was asked: the recorded approval went unused, and nothing is unrecorded.
  expect(first?.unrecorded).toEqual([]);
  const toolMessages = fake.chatRequests[1]?.body?.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)) ?? [];
  expect(toolMessages.at(-1)).toContain('denied by approval rule no-adds (rules no-adds-1): watchlists are frozen');
  // The denied call is not answered from the recording: one answered call fewer.
  expect(first?.answeredCalls).toBe(1);
  expect(lines()).toEqual(['add AAPL', 'quote AAPL', 'quote MSFT']);
});

test('a candidate that diverges at its second turn: reported with the turn, tool and arguments; the unrecorded call is answered "not recorded"', async () => {
  fake.reset();
  fake.script(...addAndQuote('MSFT'), ...quoteMsft());
  const report = await evaluate({ instructions: 'Answer in one sentence.' });
  expect(fake.errors).toEqual([]);
  const [first, second] = report.runs;
  expect(first?.divergence).toMatchObject({
    turn: 1,
    kind: 'arguments',
    recorded: [{ name: 'get_quote', args: { symbol: 'AAPL' } }],
    candidate: [{ name: 'get_quote', args: { symbol: 'MSFT' } }],
  });
  expect(first?.unrecorded).toEqual([expect.objectContaining({ kind: 'tool', turn: 1, name: 'get_quote', args: { symbol: 'MSFT' } })]);
  // The model saw the recording's answer to the approval and "not recorded" for the new call.
  const toolMessages = fake.chatRequests[2]?.body?.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)) ?? [];
  expect(toolMessages.at(-1)).toMatch(/not recorded/);
  expect(fake.chatRequests.every((r) => r.body?.messages[0]?.role === 'system' && r.body.messages[0].content === 'Answer in one sentence.')).toBe(true);
  expect(second?.divergence).toBeUndefined();
  expect(report.totals).toMatchObject({ runs: 2, diverged: 1, argumentDivergences: 1, toolChoiceDivergences: 0, unrecordedCalls: 1 });
  const xml = formatEvalJunit(report, ['no-divergence']);
  expect(xmlProblem(xml)).toBeUndefined();
  expect(xml).toContain('tests="2" failures="1"');
  expect(lines()).toEqual(['add AAPL', 'quote AAPL', 'quote MSFT']);
});

test('agentctl eval exits 8 when a gate fails, naming the run and why', async () => {
  fake.reset();
  fake.script(...addAndQuote('MSFT'), ...quoteMsft());
  const run = await runAgentctlIn(env, fake, ['eval', recorded, '--gate', 'no-divergence', '--gate', 'no-tool-divergence', '--format', 'json']);
  expect(run.stderr).toMatch(/gate no-divergence failed: .*1-add-aapl\.json: diverged \(arguments\) at turn 1: get_quote/);
  expect(run.stderr).not.toMatch(/gate no-tool-divergence failed/);
  expect(JSON.parse(run.stdout)).toMatchObject({ totals: { runs: 2, diverged: 1, argumentDivergences: 1 } });
  expect(run.code).toBe(8);
  expect(lines()).toEqual(['add AAPL', 'quote AAPL', 'quote MSFT']);
});

test('agentctl eval --prices FILE gives the candidate cost in money; a table that is not one is refused, naming the field', async () => {
  fake.reset();
  fake.script(...addAndQuote(), ...quoteMsft());
  const pricesFile = join(dir, 'prices.json');
  writeFileSync(pricesFile, JSON.stringify({ ...prices, models: { 'gpt-4o-mini': prices.models['candidate-model'] } }));
  const run = await runAgentctlIn(env, fake, ['eval', recorded, '--prices', pricesFile, '--format', 'json']);
  expect(run.code).toBe(0);
  // The agent's own model (no --model), five calls at the example prices.
  expect(JSON.parse(run.stdout)).toMatchObject({ totals: { candidate: { cost: { USD: expect.closeTo(0.2, 9) } } } });
  writeFileSync(pricesFile, JSON.stringify({ currency: 'dollars', models: {} }));
  const bad = await runAgentctlIn(env, fake, ['eval', recorded, '--prices', pricesFile]);
  expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--prices .*prices\.json: not a price table: currency: a three-letter currency code/)]);
  // Approval rules for the candidate are checked the same way, before anything runs.
  const rulesFile = join(dir, 'rules.json');
  writeFileSync(rulesFile, JSON.stringify({ version: 'v', rules: [{ id: 'r', effect: 'perhaps' }] }));
  const badRules = await runAgentctlIn(env, fake, ['eval', recorded, '--approval-rules', rulesFile]);
  expect([badRules.code, badRules.stderr]).toEqual([2, expect.stringMatching(/--approval-rules .*rules\.json: rules\.0\.effect: /)]);
  expect(lines()).toEqual(['add AAPL', 'quote AAPL', 'quote MSFT']);
});

test('the agentctl binary loads an ES module agent module (import) and a CommonJS judge that is the module itself (require)', async () => {
  fake.reset();
  fake.script(...addAndQuote(), ...quoteMsft());
  const agentModule = join(dir, 'agents.mjs');
  writeFileSync(agentModule, `export * from ${JSON.stringify(await testAgentModule())};\n`);
  const judge = join(dir, 'judge.cjs');
  writeFileSync(judge, 'module.exports = (recorded, candidate) => ({ pass: recorded.final?.text === candidate.final?.text, score: 1 });\n');
  const run = await runAgentctlIn(env, fake, ['eval', recorded, '--judge', judge, '--gate', 'judge', '--format', 'json'], { agentModule, binary: true });
  expect(run.stderr).not.toMatch(/cannot load it/);
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ totals: { runs: 2, diverged: 0 } });
  expect((JSON.parse(run.stdout) as EvaluationReport).runs.map((r) => r.judge?.pass)).toEqual([true, true]);
});

test('an agent module that also exports an agent of an MCP server agentctl was not given: the recordings, which do not run it, are evaluated', async () => {
  fake.reset();
  fake.script(...addAndQuote(), ...quoteMsft());
  // The test agents and the MCP tests' agents (toolsets of servers named everything-stdio, everything-http, changing) in one module.
  const agentModule = join(dir, 'with-mcp-agents.cjs');
  const [ownAgents, mcpAgents] = [await testAgentModule(), await agentModuleForTests('test/support/mcp/agents.ts', 'eval-mcp-agents')];
  writeFileSync(agentModule, `module.exports = { ...require(${JSON.stringify(ownAgents)}), ...require(${JSON.stringify(mcpAgents)}) };\n`);
  const run = await runAgentctlIn(env, fake, ['eval', recorded, '--format', 'json'], { agentModule });
  expect(run.stderr).not.toMatch(/MCP server/);
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ totals: { runs: 2, diverged: 0, unrecordedCalls: 0 } });
  expect(lines()).toEqual(['add AAPL', 'quote AAPL', 'quote MSFT']);
});

test('bad input is refused with what was wrong', async () => {
  await expect(evaluateRuns({ histories: [join(dir, 'missing.json')], workflowBundle: await workflowBundleOption(), agents: testAgents })).rejects.toThrow(/missing.json: no such file/);
  const missing = await runAgentctlIn(env, fake, ['eval', join(dir, 'missing.json')]);
  expect([missing.code, missing.stderr.trim()]).toEqual([2, `agentctl: ${join(dir, 'missing.json')}: no such file or directory`]);
});

describe("recordings of a session's runs with each kind of whenBusy decision", () => {
  const sessionRecorded = join(dir, 'session-recorded');

  const waitingForApproval = async (workflowId: string): Promise<void> => {
    for (;;) {
      if ((await agents.pendingInputs(workflowId, { subAgents: false }).catch(() => undefined))?.approvals.length) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const exportRun = async (name: string, workflowId: string): Promise<void> => {
    await agents.result(workflowId);
    writeFileSync(join(sessionRecorded, `${name}.json`), await agents.exportHistory(workflowId));
  };
  /** A session whose first run asks to add AAPL and waits for the approval. */
  const openWaiting = async (tag: string) => {
    const sessionId = `eval-${tag}-${Date.now()}`;
    await agents.openSession(sessionId, { agent: 'watchlist-llm', sessionState: { watchlist: [] } });
    const first = await agents.sendMessage(sessionId, { content: 'Add AAPL' });
    await waitingForApproval(first.workflowId);
    return { sessionId, first };
  };

  beforeAll(async () => {
    mkdirSync(sessionRecorded);
    // One session at a time: the fake answers in order. Each run's model calls: add AAPL, then the answer.
    fake.reset();
    fake.script(callTools(toolCall('add_to_watchlist', { symbols: ['AAPL'] }, 'steer-call')), say('Added AAPL; MSFT noted.'));
    const steered = await openWaiting('steer');
    await agents.sendMessage(steered.sessionId, { content: 'Also MSFT', whenBusy: 'steer', messageId: 'steer-1' });
    await approveWhenAsked(steered.first.workflowId);
    await exportRun('steered', steered.first.workflowId);

    for (const whenBusy of ['interrupt', 'rollback'] as const) {
      fake.script(callTools(toolCall('add_to_watchlist', { symbols: ['AAPL'] }, `${whenBusy}-call`)), say('GOOG it is.'));
      const s = await openWaiting(whenBusy);
      const next = await agents.sendMessage(s.sessionId, { content: 'No, GOOG', whenBusy, messageId: `${whenBusy}-1` });
      await exportRun(whenBusy === 'interrupt' ? 'interrupted' : 'rolled-back', s.first.workflowId);
      await exportRun(`after-${whenBusy}`, next.workflowId);
    }

    fake.script(callTools(toolCall('add_to_watchlist', { symbols: ['AAPL'] }, 'queued-call')), say('Added AAPL.'), say('MSFT trades at 456.'));
    const busy = await openWaiting('queue');
    const queued = await agents.sendMessage(busy.sessionId, { content: 'What does MSFT trade at?', whenBusy: 'enqueue', messageId: 'queued-1' });
    await expect(agents.sendMessage(busy.sessionId, { content: 'Never mind', whenBusy: 'reject' })).rejects.toMatchObject({ type: 'rejected' });
    await approveWhenAsked(busy.first.workflowId);
    await exportRun('with-rejected', busy.first.workflowId);
    await exportRun('queued', queued.workflowId);
    expect(fake.errors).toEqual([]);
    fake.reset();
  });

  test('agentctl eval reads each and names the decision: a steer, an interrupt, a rollback; a queued message is a run of its own; every recording replays', async () => {
    // The candidate model: add AAPL when asked to, else answer.
    fake.respondWith((request) => {
      const messages = request.body?.messages ?? [];
      const asked = messages.filter((m) => m.role === 'user').map((m) => String(m.content));
      return messages.some((m) => m.role === 'tool') || asked.at(-1) !== 'Add AAPL' ? say('done') : callTools(toolCall('add_to_watchlist', { symbols: ['AAPL'] }));
    });
    // The JSON report to a file, the table printed.
    const out = join(dir, 'session-report.json');
    const run = await runAgentctlIn(env, fake, ['eval', sessionRecorded, '--format', 'json', '--out', out]);
    expect(run.code).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8')) as EvaluationReport;
    const bySource = new Map(report.runs.map((r) => [r.source.split('/').pop(), r]));
    expect([...bySource.keys()].sort()).toEqual(['after-interrupt.json', 'after-rollback.json', 'interrupted.json', 'queued.json', 'rolled-back.json', 'steered.json', 'with-rejected.json'].sort());
    expect(report.runs.filter((r) => r.error)).toEqual([]);
    const interventionsOf = (name: string) => bySource.get(name)!.interventions.map((i) => [i.kind, i.intervention]);
    // Each decision by its name: a steer is the session's inject_message (it names the message), an
    // interrupt or a rollback the kill the session sent (naming the message and its whenBusy).
    expect(interventionsOf('steered.json')).toEqual([['steer', { kind: 'inject_message', role: 'user', content: 'Also MSFT', messageId: 'steer-1' }]]);
    expect(interventionsOf('interrupted.json')).toEqual([['interrupt', { reason: 'interrupted by session message interrupt-1', endedBy: { whenBusy: 'interrupt', messageId: 'interrupt-1' } }]]);
    expect(interventionsOf('rolled-back.json')).toEqual([['rollback', { reason: 'rolled back by session message rollback-1', endedBy: { whenBusy: 'rollback', messageId: 'rollback-1' } }]]);
    // A queued message is a run of its own, read as any; a rejected one reached no run.
    for (const name of ['after-interrupt.json', 'after-rollback.json', 'queued.json', 'with-rejected.json']) expect(interventionsOf(name)).toEqual([]);
    expect(bySource.get('interrupted.json')!.recorded.status).toBe('terminated');
    expect(bySource.get('steered.json')!.answeredCalls).toBe(1);

    expect(run.stdout).toContain('steered session message steer-1, which the candidate did not get: {"kind":"inject_message","role":"user","content":"Also MSFT","messageId":"steer-1"}');
    expect(run.stdout).toContain('ended by session message interrupt-1 (whenBusy: interrupt), which the candidate did not get');
    expect(run.stdout).toContain('ended by session message rollback-1 (whenBusy: rollback), which the candidate did not get');

    // Every recording replays on the current code: all in one replay worker, and one with agentctl.
    const replays = await replayAgentHistories(sessionRecorded, { workflowBundle: await workflowBundleOption() });
    expect(replays.map((r) => [r.file.split('/').pop(), r.outcome.ok])).toEqual([...bySource.keys()].sort().map((name) => [name, true]));
    const replay = await runAgentctl(['replay', join(sessionRecorded, 'steered.json'), ...testWorkflowCodeArgs()], { TEMPORAL_ADDRESS: env.address });
    expect([replay.code, replay.stdout.trim()]).toEqual([0, expect.stringMatching(/^replayed \d+ events: deterministic$/)]);
    fake.respondWith(undefined);
  });
});
