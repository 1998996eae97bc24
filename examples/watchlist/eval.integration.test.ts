/**
 * The example's evaluation corpus (`recorded-runs/`, written by `npm run examples:record`) as CI
 * uses it: `agentctl eval` evaluates the example's agents against it and passes its gates; a
 * changed agent that answers without quoting fails the tool-choice gate, exit 8, naming the runs.
 */
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createTestEnv } from '../../test/support/test-env';
import { agentModuleForTests, runAgentctl } from '../../test/support/agentctl-eval';

const corpus = join(__dirname, 'recorded-runs');
const gates = ['--gate', 'no-divergence', '--gate', 'no-unrecorded-calls', '--gate', 'no-errors'];
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

/** `agentctl eval` of the corpus with a candidate's workflows module (its planners run there) and agent module. */
function evaluate(workflows: string, agentModule: string, ...args: string[]): ReturnType<typeof runAgentctl> {
  return runAgentctl(['eval', corpus, '--workflows', workflows, '--agent-module', agentModule, '--address', env.address, ...gates, ...args]);
}

it("the example's agents, evaluated against its recorded runs, decide as recorded: every gate passes", async () => {
  const run = await evaluate(join(__dirname, 'workflows.ts'), await agentModuleForTests('examples/watchlist/agent.ts', 'watchlist-agents'));
  expect(run.stderr).not.toMatch(/gate .* failed/);
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^7 runs: 0 diverged \(0 in tool choice, 0 in arguments\), 0 unrecorded calls, 7 same final answers$/m);
  // The rejected add (a call that never ran) got the recorded rejection, not "not recorded".
  expect(run.stdout).toMatch(/2-add-rejected\.json\s+no\s+2 → 2\s+2 → 2\s+0 → 0\s+0\s+same/);
});

it('a changed agent that answers without quoting fails the tool-choice gate, naming each run it changed', async () => {
  const candidate = join(__dirname, '../../test/support/candidates');
  const agentModule = await agentModuleForTests('test/support/candidates/watchlist-no-quotes.ts', 'watchlist-no-quotes');
  const run = await evaluate(join(candidate, 'watchlist-no-quotes-workflows.ts'), agentModule, '--format', 'json');
  const report = JSON.parse(run.stdout) as { runs: { source: string; divergence?: { turn: number; kind: string } }[] };
  const diverged = report.runs.filter((r) => r.divergence).map((r) => [r.source.split('/').pop(), r.divergence?.kind]);
  expect(diverged).toEqual([
    ['1-add-approved.json', 'tool_choice'],
    ['2-add-rejected.json', 'tool_choice'],
    ['3-remove.json', 'tool_choice'],
    ['6-session-add.json', 'tool_choice'],
  ]);
  expect(run.stderr).toMatch(/gate no-divergence failed: .*1-add-approved\.json: diverged \(tool_choice\) at turn 1/);
  expect(run.code).toBe(8);
});
