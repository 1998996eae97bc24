/**
 * Evaluation of recorded runs that are more than one history: a run with a sub-agent run (its
 * child recorded apart), a run that continued as new (one history per execution), and a run an
 * operator corrected. Recorded on a real dev server with the fake model, as users record them;
 * the recorded tools write a side-effect line that an evaluation must never add to.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import OpenAI from 'openai';
import { implementTool, type ToolImplementation } from '../../activities';
import type { AgentClient } from '../../client/agent-client';
import { getQuoteTool } from '../../examples/watchlist/agent';
import { callTools, say, toolCall, type FakeOpenAIServer, type FakeStep } from '../../testing/fake-model';
import { evaluateRuns, failedGates, formatEvalTable, loadRecordings, type EvaluationReport } from '../../testing/eval';
import { testAgents } from '../support/agents';
import { modelSuite } from '../support/model-suite';
import { workflowBundleOption } from '../support/test-env';
import { allToolImplementations } from '../support/tools';
import { runAgentctl } from '../support/agentctl-eval';
import { testTempDir } from '../support/temp-dir';

const dir = testTempDir('eval-tree-');
const sideEffects = join(dir, 'side-effects.log');
const folder = (name: string): string => {
  const path = join(dir, name);
  mkdirSync(path, { recursive: true });
  return path;
};

/** get_quote with a side effect: a line in the file per call that ran. */
function tracedTools(): ToolImplementation[] {
  return [
    implementTool(getQuoteTool, ({ symbol }) => {
      writeFileSync(sideEffects, `quote ${symbol}\n`, { flag: 'a' });
      return { symbol, price: symbol === 'AAPL' ? 123 : 456, currency: 'USD' };
    }),
  ];
}

const lines = (): string[] => readFileSync(sideEffects, 'utf8').split('\n').filter(Boolean);

/** The model's answers of the tree run: the lead asks the watchlist agent, which quotes AAPL and answers; the lead answers. */
const treeSteps = (): FakeStep[] => [
  callTools(toolCall('ask_watchlist', { task: 'Quote AAPL' })),
  callTools(toolCall('get_quote', { symbol: 'AAPL' })),
  say('AAPL trades at 123.'),
  say('The watchlist agent says AAPL trades at 123.'),
];
/** The lead asks the watchlist agent to add AAPL; the child's add waits for a human's approval. */
const approvalTreeSteps = (): FakeStep[] => [
  callTools(toolCall('ask_watchlist', { task: 'Add AAPL to the watchlist' })),
  callTools(toolCall('add_to_watchlist', { symbols: ['AAPL'] })),
  say('Added AAPL.'),
  say('The watchlist agent added AAPL.'),
];
/** Three quotes, one turn each, then the answer: long enough to continue as new. */
const threeQuotes = (): FakeStep[] => [
  callTools(toolCall('get_quote', { symbol: 'AAPL' })),
  callTools(toolCall('get_quote', { symbol: 'MSFT' })),
  callTools(toolCall('get_quote', { symbol: 'NVDA' })),
  say('AAPL 123, MSFT 456, NVDA 456.'),
];
const correctedSteps = (): FakeStep[] => [callTools(toolCall('get_quote', { symbol: 'AAPL' }, 'q1')), say('MSFT trades at 456.')];

const suite = modelSuite('eval-tree', {}, () => [...tracedTools(), ...allToolImplementations()]);
let env: TestWorkflowEnvironment;
let fake: FakeOpenAIServer;
let openai: OpenAI;
let agents: AgentClient;
let childWorkflowId: string;
let continuedExecutions: number;
let continuedWorkflowId: string;

type HistoryJson = { events: { workflowExecutionStartedEventAttributes?: { continuedExecutionRunId?: string }; startChildWorkflowExecutionInitiatedEventAttributes?: { workflowId: string } }[] };


async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 100));
}

async function recordTree(): Promise<void> {
  fake.script(...treeSteps());
  const { workflowId } = await agents.start({ agent: 'llm-lead', messages: [{ role: 'user', content: 'What does AAPL trade at?' }] });
  await agents.result(workflowId);
  const parent = await agents.exportHistory(workflowId);
  childWorkflowId = (JSON.parse(parent) as HistoryJson).events.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [])[0]!;
  writeFileSync(join(folder('tree'), 'lead.json'), parent);
  writeFileSync(join(folder('tree'), 'lead-child.json'), await agents.exportHistory(childWorkflowId));
  writeFileSync(join(folder('parent-only'), 'lead.json'), parent);
}

/** The tree run whose sub-agent run asks for an approval, approved in the child through the tree, as an operator does. */
async function recordApprovalTree(): Promise<void> {
  fake.script(...approvalTreeSteps());
  const { workflowId } = await agents.start({ agent: 'llm-lead', messages: [{ role: 'user', content: 'Add AAPL to my watchlist' }], sessionState: { watchlist: [] } });
  let waiting: { path: readonly string[]; toolCallId: string } | undefined;
  await until(async () => {
    const entry = (await agents.pendingInputsTree(workflowId)).find((e) => e.path.length > 0 && e.approvals.length > 0);
    waiting = entry ? { path: entry.path, toolCallId: entry.approvals[0]!.toolCallId } : undefined;
    return waiting !== undefined;
  });
  await agents.decideInTree(workflowId, waiting!.path, { decision: 'approve', toolCallId: waiting!.toolCallId, by: 'operator' });
  await agents.result(workflowId);
  const parent = await agents.exportHistory(workflowId);
  const child = (JSON.parse(parent) as HistoryJson).events.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? [])[0]!;
  writeFileSync(join(folder('approval-tree'), 'lead.json'), parent);
  writeFileSync(join(folder('approval-tree'), 'lead-child.json'), await agents.exportHistory(child));
}

async function recordContinued(): Promise<void> {
  fake.script(...threeQuotes());
  const { workflowId } = await agents.start({ agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Quote AAPL, MSFT and NVDA' }], policy: { continueAsNewAfterEvents: 15 } });
  await agents.result(workflowId);
  const chain = (await agents.exportExecutions(workflowId)).map((e) => e.json);
  continuedExecutions = chain.length;
  chain.forEach((json, i) => writeFileSync(join(folder('continued'), `quotes-${i + 1}.json`), json));
  writeFileSync(join(folder('continued-last'), 'quotes-last.json'), chain[chain.length - 1]!);
  continuedWorkflowId = workflowId;
}

/** An operator edits the planned call's arguments (AAPL → MSFT) and injects a message before the run goes on. */
async function recordCorrected(): Promise<void> {
  fake.script(...correctedSteps());
  const { workflowId } = await agents.start({ agent: 'watchlist-llm', messages: [{ role: 'user', content: 'Quote AAPL' }], breakpoints: [{ point: 'after_llm', once: true }] });
  await until(async () => (await agents.status(workflowId)).status === 'paused');
  await agents.intervene(workflowId, { kind: 'edit_call', toolCallId: 'q1', args: { symbol: 'MSFT' } });
  await agents.intervene(workflowId, { kind: 'inject_message', role: 'user', content: 'I meant MSFT.' });
  await agents.resume(workflowId, 'corrected');
  await agents.result(workflowId);
  writeFileSync(join(folder('corrected'), 'corrected.json'), await agents.exportHistory(workflowId));
}

beforeAll(async () => {
  ({ env, agents, fake } = suite);
  openai = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test-key', maxRetries: 0 });
  await recordTree();
  await recordContinued();
  await recordCorrected();
  await recordApprovalTree();
  expect(fake.errors).toEqual([]);
  expect(lines()).toEqual(['quote AAPL', 'quote AAPL', 'quote MSFT', 'quote NVDA', 'quote MSFT']);
  expect(continuedExecutions).toBeGreaterThan(1);
  fake.reset();
});


async function evaluate(histories: string): Promise<EvaluationReport> {
  return evaluateRuns({
    histories: [histories],
    workflowBundle: await workflowBundleOption(),
    agents: testAgents,
    openai,
    server: { address: env.address, namespace: env.namespace ?? 'default' },
  });
}

/** Evaluates the recording in `dir/<recording>` with the fake model scripted afresh; the model saw no unscripted request. */
async function evaluateScripted(recording: string, steps: readonly FakeStep[]): Promise<EvaluationReport> {
  fake.reset();
  fake.script(...steps);
  const report = await evaluate(join(dir, recording));
  expect(fake.errors).toEqual([]);
  return report;
}

const recordedLines = ['quote AAPL', 'quote AAPL', 'quote MSFT', 'quote NVDA', 'quote MSFT'];

describe('a run with a sub-agent run', () => {
  test("with the child's history: one run, the child answered from its recording, the tree's totals", async () => {
    const report = await evaluateScripted('tree', treeSteps());
    expect(report.runs).toHaveLength(1);
    const [run] = report.runs;
    expect(run?.source).toMatch(/tree\/lead\.json$/);
    expect([run?.divergence, run?.unrecorded, run?.missingSubRuns, run?.sameFinal]).toEqual([undefined, [], [], true]);
    expect(run?.subRuns).toEqual([
      expect.objectContaining({ agent: 'watchlist-llm', recordedWorkflowId: childWorkflowId, source: expect.stringMatching(/lead-child\.json$/), answeredCalls: 1, status: 'completed' }),
    ]);
    expect(run?.subRuns[0]?.divergence).toBeUndefined();
    // Two turns of the lead and two of its child; the lead's cost report counts the child's calls and tokens.
    expect(run?.recorded.totals).toEqual({ turns: 4, toolCalls: 2, modelCalls: 4, tokens: 120 });
    expect(run?.candidate.totals).toEqual(run?.recorded.totals);
    expect(report.totals).toMatchObject({ runs: 1, diverged: 0, unrecordedCalls: 0 });
    expect(lines()).toEqual(recordedLines);
  });

  test("without the child's history: its calls are answered \"not recorded\" and the report names the missing recording", async () => {
    const report = await evaluateScripted('parent-only', treeSteps());
    const [run] = report.runs;
    expect(run?.missingSubRuns).toEqual([expect.objectContaining({ workflowId: childWorkflowId, agent: 'watchlist-llm' })]);
    expect(run?.unrecorded).toEqual([expect.objectContaining({ kind: 'tool', name: 'get_quote', args: { symbol: 'AAPL' }, path: [expect.any(String)] })]);
    // The child's model saw the error instead of a quote.
    const childSecondTurn = fake.chatRequests[2]?.body?.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)) ?? [];
    expect(childSecondTurn.at(-1)).toMatch(/not recorded/);
    expect(formatEvalTable(report)).toContain(`sub-run ${childWorkflowId} (watchlist-llm) not given`);
    expect(lines()).toEqual(recordedLines);
  });

  test('a sub-agent run that decides otherwise: its divergence is reported under the run and fails the divergence gate', async () => {
    const [lead, , childAnswer, leadAnswer] = treeSteps();
    const report = await evaluateScripted('tree', [lead!, callTools(toolCall('get_quote', { symbol: 'MSFT' })), childAnswer!, leadAnswer!]);
    const [run] = report.runs;
    expect(run?.divergence).toBeUndefined();
    expect(run?.subRuns[0]?.divergence).toMatchObject({ turn: 0, kind: 'arguments', candidate: [{ name: 'get_quote', args: { symbol: 'MSFT' } }] });
    expect(run?.unrecorded).toEqual([expect.objectContaining({ name: 'get_quote', args: { symbol: 'MSFT' }, path: run?.subRuns[0]?.path })]);
    expect(failedGates(report, ['no-divergence', 'no-tool-divergence'])).toEqual([
      { gate: 'no-divergence', runs: [{ source: run?.source, reason: expect.stringMatching(/^diverged \(arguments\) at sub-run .* \(watchlist-llm\) turn 0: get_quote/) }] },
    ]);
    expect(lines()).toEqual(recordedLines);
  });
});

test("an approval inside the sub-agent run is given from the child's recording", async () => {
  const report = await evaluateScripted('approval-tree', approvalTreeSteps());
  const [run] = report.runs;
  expect([run?.divergence, run?.unrecorded, run?.missingSubRuns, run?.sameFinal]).toEqual([undefined, [], [], true]);
  expect(run?.subRuns).toEqual([expect.objectContaining({ agent: 'watchlist-llm', answeredCalls: 1, status: 'completed' })]);
  expect(run?.candidate.final?.text).toBe('The watchlist agent added AAPL.');
  expect(lines()).toEqual(recordedLines);
});

describe('a run that continued as new', () => {
  test('its executions, given together, are evaluated as one run from the first execution\'s input', async () => {
    const report = await evaluateScripted('continued', threeQuotes());
    expect(report.runs).toHaveLength(1);
    const [run] = report.runs;
    expect(run?.candidate.input.messages).toEqual([{ role: 'user', content: 'Quote AAPL, MSFT and NVDA' }]);
    expect([run?.divergence, run?.unrecorded, run?.answeredCalls, run?.sameFinal]).toEqual([undefined, [], 3, true]);
    expect(run?.recorded.steps.map((s) => s.turn)).toEqual([0, 1, 2, 3]);
    expect(run?.recorded.totals).toEqual({ turns: 4, toolCalls: 3, modelCalls: 4, tokens: 120 });
    expect(run?.candidate.totals).toEqual(run?.recorded.totals);
    expect(lines()).toEqual(recordedLines);
  });

  test('agentctl history export --all-executions writes every execution, first to last, and they read as that one run', async () => {
    const out = join(dir, 'continued-cli');
    const cli = await runAgentctl(['history', 'export', continuedWorkflowId, '--all-executions', '--out', out, '--address', env.address]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(new RegExp(`wrote ${continuedExecutions} execution\\(s\\) of ${continuedWorkflowId}`));
    expect(readdirSync(out)).toHaveLength(continuedExecutions);
    const [fromCli] = await loadRecordings([out]);
    const [fromLibrary] = await loadRecordings([join(dir, 'continued')]);
    expect(fromCli?.steps).toEqual(fromLibrary?.steps);
    expect(fromCli?.input.messages).toEqual([{ role: 'user', content: 'Quote AAPL, MSFT and NVDA' }]);
    const refused = await runAgentctl(['history', 'export', continuedWorkflowId, '--all-executions', '--address', env.address]);
    expect([refused.code, refused.stderr.trim()]).toEqual([2, 'agentctl: --all-executions writes one file per execution: give --out DIRECTORY']);
  });

  test('a later execution alone is refused, naming the execution to export', async () => {
    await expect(loadRecordings([join(dir, 'continued-last')])).rejects.toThrow(/quotes-last\.json is a later execution of .* continued from run [0-9a-f-]+.*--run-id/);
  });
});

test("an operator's corrections of the recording are reported as interventions", async () => {
  const report = await evaluateScripted('corrected', correctedSteps());
  const [run] = report.runs;
  expect(run?.interventions.map((i) => [i.kind, i.path])).toEqual([
    ['edit_call', []],
    ['inject_message', []],
  ]);
  expect(run?.interventions[0]?.intervention).toMatchObject({ toolCallId: 'q1', args: { symbol: 'MSFT' } });
  // The candidate was not corrected: its call of AAPL has no recorded answer.
  expect(run?.unrecorded).toEqual([expect.objectContaining({ name: 'get_quote', args: { symbol: 'AAPL' } })]);
  expect(formatEvalTable(report)).toMatch(/intervention \(edit_call\)/);
  expect(lines()).toEqual(recordedLines);
});
