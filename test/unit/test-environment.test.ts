/**
 * The suite's test environment (test/support/test-environment.ts) removes the promise hooks a test
 * file installed once it ends: with Node's own environment, a hook from one file still runs for
 * every promise of the files after it in the same jest worker.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const fixtures = join(root, 'test', 'fixtures', 'jest-leftovers');

/** Runs the two fixture files in one jest process; answers the calls of the first file's hook seen by the second. */
function leftoverHookCalls(testEnvironment: string): number {
  const config = {
    rootDir: fixtures,
    testEnvironment,
    testMatch: ['<rootDir>/*.test.ts'],
    testSequencer: join(fixtures, 'sequencer.mjs'),
    transform: { '^.+\\.ts$': ['@swc/jest', {}] },
  };
  const jest = spawnSync(process.execPath, [join(root, 'node_modules', '.bin', 'jest'), '--config', JSON.stringify(config), '--runInBand', '--ci'], {
    cwd: root,
    encoding: 'utf8',
  });
  const calls = /leftover hook calls: (\d+)/.exec(jest.stdout);
  if (jest.status !== 0 || !calls) throw new Error(`the fixture run failed (${jest.status}):\n${jest.stdout}\n${jest.stderr}`);
  return Number(calls[1]);
}

test("Node's environment keeps a file's promise hook for the files after it; ours removes it", () => {
  expect(leftoverHookCalls('node')).toBeGreaterThan(0);
  expect(leftoverHookCalls(join(root, 'test', 'support', 'test-environment.ts'))).toBe(0);
}, 60_000);
