/**
 * The suite's test environment (test/support/test-environment.ts) removes the promise hooks a test
 * file installed once it ends: with Node's own environment, a hook from one file still runs for
 * every promise of the files after it in the same jest worker. And jest's source-mapping stack
 * formatter stays with the errors of the process and of the running file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';

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

test("jest maps the stacks of the file's and the process's errors, and leaves other realms' (workflow sandboxes') to Node's format", () => {
  const dir = mkdtempSync(join(tmpdir(), 'stack-realms-'));
  try {
    // One generated line whose source map says it was original.ts line 7.
    const generated = join(dir, 'generated.js');
    const map = { version: 3, file: 'generated.js', sources: ['original.ts'], names: [], mappings: 'AAMA' };
    writeFileSync(generated, `new Error('boom').stack\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`);
    const code = readFileSync(generated, 'utf8');
    // Code that sets its own formatter for a moment (to read call sites) and puts back what it read.
    const ProcessError = vm.runInThisContext('Error') as ErrorConstructor;
    const saved = ProcessError.prepareStackTrace;
    ProcessError.prepareStackTrace = (_error, callSites) => callSites;
    const callSites: unknown = vm.runInThisContext('new Error().stack');
    ProcessError.prepareStackTrace = saved;
    expect(Array.isArray(callSites)).toBe(true);
    const processRealm = vm.runInThisContext(code, { filename: generated }) as string;
    const sandboxRealm = vm.runInNewContext(code, {}, { filename: generated }) as string;
    expect(processRealm).toMatch(/original\.ts:7:1/);
    expect(sandboxRealm).toMatch(/^Error: boom\n {4}at .*generated\.js:1:1/);
    expect(sandboxRealm).not.toMatch(/original\.ts/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the SDK's stack-collecting promise hook is not installed: promises of a workflow's realm are not tracked", () => {
  // The hook tracks each promise of a realm whose global has a workflow activator: it tags the
  // promise with the run's id and keeps its stack. This file's realm gets one for the test.
  const realm = globalThis as typeof globalThis & { __TEMPORAL_ACTIVATOR__?: unknown };
  const promiseStackStore = { promiseToStack: new Map(), childToParent: new Map() };
  realm.__TEMPORAL_ACTIVATOR__ = { info: { runId: 'run-of-the-test' }, promiseStackStore };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the SDK's internal module, as its workflow runtime loads it
    const { globalHandlers } = require('@temporalio/worker/lib/workflow/vm-shared') as { globalHandlers: { install(): void } };
    globalHandlers.install();
    const promise = Promise.resolve('made in a workflow realm') as Promise<string> & { runId?: string };
    expect(promise.runId).toBeUndefined();
    expect(promiseStackStore.promiseToStack.size).toBe(0);
  } finally {
    delete realm.__TEMPORAL_ACTIVATOR__;
  }
});
