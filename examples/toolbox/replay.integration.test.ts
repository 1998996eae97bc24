/**
 * The toolbox example's own replay test: the newest release's recorded runs of its agents
 * (`scripted`, `guarded`) replay on its own workflows module, which bundles only those agents.
 */
import { readdirSync, readFileSync } from 'node:fs';
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

/** The folder of the newest release's recordings (the corpus has one folder per release, e.g. `0.13.0`). */
function newestRelease(): string {
  const releases = readdirSync(histories).filter((d) => /^\d+\.\d+\.\d+$/.test(d));
  const version = (d: string): number[] => d.split('.').map(Number);
  releases.sort((a, b) => version(a).reduce((c, n, i) => c || n - version(b)[i]!, 0));
  return join(histories, releases.at(-1)!);
}

/** A guard against a hung replay, not a speed check. */
const corpusTimeoutMs = 600_000;

// The newest release's recordings only: every release's replay on the full workflows module is
// test/replay's job; this checks that the example's own module, which bundles only its agents,
// replays its agents' runs.
test('recorded runs of the toolbox agents replay on the example\'s own workflows module', async () => {
  const files = findHistoryFiles(newestRelease()).filter((f) => names.has(agentOf(f)));
  expect(files.length).toBeGreaterThanOrEqual(14);
  const results = await replayAgentHistories(files, { workflowsPath: require.resolve('./workflows') });
  expect(results.filter((r) => !r.outcome.ok)).toEqual([]);
}, corpusTimeoutMs);
