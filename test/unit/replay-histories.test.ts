import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replayAgentHistories } from '../../testing/replay-histories';
import { testTempDir } from '../support/temp-dir';
import { testWorkflowsPath } from '../support/test-bundle';

// A corpus that is not there must not pass as one that replays: the README's replay test passed
// with no histories at all.
describe('replayAgentHistories of no histories', () => {
  const options = { workflowsPath: testWorkflowsPath };

  it('refuses an empty folder, naming it and allowEmpty', async () => {
    const empty = testTempDir('empty-corpus-');
    mkdirSync(join(empty, 'mutated'));
    writeFileSync(join(empty, 'mutated', 'skipped.json'), '{}');
    writeFileSync(join(empty, 'notes.txt'), 'not a history');
    await expect(replayAgentHistories(empty, { ...options, skipDirs: ['mutated'] })).rejects.toThrow(
      `replayAgentHistories: ${empty}: no *.json histories in this directory; pass allowEmpty: true to accept a corpus with none`,
    );
  });

  it('refuses a folder that does not exist, and no paths at all', async () => {
    const missing = join(testTempDir('missing-corpus-'), 'test', 'histories');
    await expect(replayAgentHistories(missing, options)).rejects.toThrow(
      `replayAgentHistories: ${missing}: no such file or directory; pass allowEmpty: true to accept a corpus with none`,
    );
    await expect(replayAgentHistories([], options)).rejects.toThrow('replayAgentHistories: no history paths given; pass allowEmpty: true to accept a corpus with none');
  });

  it('answers no outcomes when allowEmpty is asked for', async () => {
    const empty = testTempDir('empty-corpus-');
    const missing = join(empty, 'histories');
    expect(await replayAgentHistories([empty, missing], { ...options, allowEmpty: true })).toEqual([]);
  });
});
