/**
 * The watchlist example's own replay test, as a user writes it: the recorded watchlist runs
 * replay on this example's workflows module (which bundles only the watchlist agents).
 */
import { join } from 'node:path';
import { bundleAgentWorkflows } from 'durable-agents/worker';
import { replayAgentHistories } from 'durable-agents/testing';

const histories = join(__dirname, '..', '..', 'test', 'histories');
// Bundled once for both tests (replayAgentHistories also takes `workflowsPath` and bundles it).
const workflowBundle = bundleAgentWorkflows(require.resolve('./workflows'));
const watchlistRuns = ['0.13.0/watchlist.json', '0.13.0/llm-watchlist.json', '0.13.0/open-watchlist-approval.json'].map((f) => join(histories, f));

test('recorded watchlist runs replay on the example\'s own workflows module', async () => {
  const results = await replayAgentHistories(watchlistRuns, { workflowBundle: await workflowBundle });
  expect(results.map((r) => [r.file, r.outcome.ok])).toEqual(watchlistRuns.map((f) => [expect.stringContaining(f.split('/').at(-1)!), true]));
});

test('a run of another agent is reported as not in this bundle', async () => {
  const [result] = await replayAgentHistories(join(histories, '0.13.0', 'basic.json'), { workflowBundle: await workflowBundle });
  expect(result?.outcome).toMatchObject({ ok: false, kind: 'unknown_agent' });
});
