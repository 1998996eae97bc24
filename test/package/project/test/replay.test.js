// The user's own replay test: the captured history replays on the agent's code, and a careless
// reordering of its tool calls is caught as nondeterminism.
const { replayAgentHistories } = require('durable-agents/testing');

const history = process.env.HISTORY_FILE ?? 'histories/notes.json';

test('the captured history replays on the current code', async () => {
  const [result] = await replayAgentHistories(history, { workflowsPath: require.resolve('../dist/workflows') });
  expect(result.outcome).toEqual({ ok: true, events: expect.any(Number) });
});

test('reordering the tool calls is caught as nondeterminism', async () => {
  const [result] = await replayAgentHistories(history, { workflowsPath: require.resolve('../dist/workflows-reordered') });
  expect(result.outcome).toMatchObject({ ok: false, kind: 'nondeterminism' });
  // In plain words: which history event the changed code no longer matches.
  expect(result.outcome.problem).toMatch(/^at history event \d+ \(\w+\) the current code issued a different command/);
});
