import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { historiesDir, loadHistories, mutatedHistoriesDir } from '../support/histories';
import { quietRuntime, workflowBundleOption } from '../support/test-env';

const committed = loadHistories(historiesDir);
const mutated = loadHistories(mutatedHistoriesDir);

beforeAll(() => quietRuntime());

describe('committed histories replay against the current workflow code', () => {
  it('there are committed histories to replay', () => {
    expect(committed.length).toBeGreaterThanOrEqual(16);
  });

  it.each(committed.map((h) => [h.name, h.history] as const))('%s replays without a determinism violation', async (name, history) => {
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundleOption() }, history, `replay-${name}`)).resolves.toBeUndefined();
  });

  it.each(mutated.map((h) => [h.name, h.history] as const))('mutated %s fails with a determinism violation', async (name, history) => {
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundleOption() }, history, `replay-${name}`)).rejects.toBeInstanceOf(
      DeterminismViolationError,
    );
  });
});
