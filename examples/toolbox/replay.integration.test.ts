/**
 * The toolbox example's own replay test: every recorded run of its agents (`scripted`,
 * `guarded`) replays on its own workflows module, which bundles only those agents.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findHistoryFiles, replayAgentHistories } from 'durable-agents/testing';
import { toolboxAgents } from './agent';

const histories = join(__dirname, '..', '..', 'test', 'histories');
const names = new Set(toolboxAgents.map((a) => a.name));

/** The agent a history ran, from its first event's input. */
function agentOf(file: string): string {
  const json = JSON.parse(readFileSync(file, 'utf8')) as { events: { workflowExecutionStartedEventAttributes: { input: { payloads: { data: string }[] } } }[] };
  const data = json.events[0]?.workflowExecutionStartedEventAttributes.input.payloads[0]?.data ?? '';
  return (JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { agent: string }).agent;
}

/**
 * A guard against a hung replay, not a speed check: the corpus only grows (it took 85 s inside a
 * full `npm test` run at 35 histories per version, 14 s on its own).
 */
const corpusTimeoutMs = 600_000;

test('recorded runs of the toolbox agents replay on the example\'s own workflows module', async () => {
  const files = findHistoryFiles(histories, ['mutated']).filter((f) => names.has(agentOf(f)));
  expect(files.length).toBeGreaterThanOrEqual(14);
  const results = await replayAgentHistories(files, { workflowsPath: require.resolve('./workflows') });
  expect(results.filter((r) => !r.outcome.ok)).toEqual([]);
}, corpusTimeoutMs);
