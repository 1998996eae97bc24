/**
 * Counterfactual replay on a real dev server and worker with the fake model: two runs of an LLM
 * agent are recorded as users record them (run, then export the history), then candidates are
 * evaluated against them. The recorded tools have a side effect (a line in a file) that an
 * evaluation must never repeat.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import OpenAI from 'openai';
import { implementTool, type ToolImplementation } from '../../activities';
import type { AgentClient } from '../../client/agent-client';
import { addToWatchlistTool, getQuoteTool } from '../../examples/watchlist/agent';
import { callTools, say, toolCall, type FakeOpenAIServer, type FakeStep } from '../../testing/fake-model';
import { evaluateRuns, formatEvalJunit, type EvaluationReport } from '../../testing/eval';
import { testAgents } from '../support/agents';
import { modelSuite } from '../support/model-suite';
import { workflowBundleOption } from '../support/test-env';
import { allToolImplementations } from '../support/tools';
import { xmlProblem } from '../support/well-formed-xml';
import { agentModuleForTests, runAgentctlIn, testAgentModule } from '../support/agentctl-eval';
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

async function evaluate(change: { model?: string; instructions?: string } = {}): Promise<EvaluationReport> {
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
