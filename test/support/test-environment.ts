/**
 * The test environment of every test file: Node's, plus the removal of what a file left behind in
 * its jest worker process once the file has ended (after its own `afterAll` hooks).
 *
 * Jest gives each test file a module registry of its own, but hooks into Node itself outlive it:
 * - A worker with `debugMode` (./test-env's `inProcessWorkerOptions`) and the SDK's replay worker
 *   run workflows on the calling thread, and the first of them in a module registry installs a V8
 *   promise hook (every promise created anywhere then pays a lookup, every promise of workflow code
 *   a stack capture, for the `__stack_trace` query). The SDK never removes it, counting on one
 *   copy of itself per process; here every file that ran workflows added one more for good, so
 *   files late in a long run paid for every file before them (the UI stream's file took 166 s of
 *   CPU late in a full run against 50 s alone, and timed out in two runs of three).
 * - Each `AsyncLocalStorage` that has held a value stays on Node's list (until Node 22's
 *   async-context frames), and every async resource then visits all of them: the SDK's clients
 *   and activity contexts left three to seven a file.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { promiseHooks } from 'node:v8';
import NodeEnvironment from 'jest-environment-node';

/** What the file that runs now put into the process: undone when it ends. */
const leftBehind = { promiseHooks: [] as (() => void)[], storages: new Set<AsyncLocalStorage<unknown>>() };

const createHook = promiseHooks.createHook.bind(promiseHooks);
promiseHooks.createHook = (hooks) => {
  const stop = createHook(hooks);
  leftBehind.promiseHooks.push(stop as () => void);
  return stop;
};

// Node 20's list of storages in use; Node 22 and later keep none (no `_enable`).
const storage = AsyncLocalStorage.prototype as unknown as { _enable?: (this: AsyncLocalStorage<unknown>) => void };
const enable = storage._enable;
if (enable) {
  storage._enable = function (this: AsyncLocalStorage<unknown>) {
    leftBehind.storages.add(this);
    enable.call(this);
  };
}

export default class TestEnvironment extends NodeEnvironment {
  override async teardown(): Promise<void> {
    for (const stop of leftBehind.promiseHooks.splice(0)) stop();
    for (const used of leftBehind.storages) used.disable();
    leftBehind.storages.clear();
    await super.teardown();
  }
}
