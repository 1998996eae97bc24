import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { corpusHistories, loadHistories, mutatedHistoriesDir } from '../support/histories';
import { quietRuntime, workflowBundleOption } from '../support/test-env';

const corpus = corpusHistories();
const mutated = loadHistories(mutatedHistoriesDir);

beforeAll(() => quietRuntime());

describe('every recorded history of every workflow version replays on the current workflow code', () => {
  it('the corpus holds the histories of each recorded version, open runs included', () => {
    const versions = new Set(corpus.map((h) => h.name.split('/')[0]));
    expect(versions.has('0.1.0')).toBe(true);
    expect(corpus.filter((h) => /\/open-/.test(h.name)).length).toBeGreaterThanOrEqual(5);
    expect(corpus.length).toBeGreaterThanOrEqual(21);
  });

  it.each(corpus.map((h) => [h.name, h.history] as const))('%s replays without a determinism violation', async (name, history) => {
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundleOption() }, history, `replay-${name}`)).resolves.toBeUndefined();
  });

  it.each(mutated.map((h) => [h.name, h.history] as const))('mutated %s fails with a determinism violation', async (name, history) => {
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundleOption() }, history, `replay-${name}`)).rejects.toBeInstanceOf(
      DeterminismViolationError,
    );
  });
});
