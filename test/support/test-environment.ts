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
 *
 * And one hook into Node that jest installs itself: its source-mapping stack formatter, as the
 * process's `Error.prepareStackTrace`. Node calls that for errors of every realm, the workflow
 * sandboxes' too, and the sandbox's promise hook above reads the stack of one new error per
 * promise of workflow code; the SDK maps those stacks itself with its own formatter, which under
 * jest is installed in the test file's realm and so never called, and drops the string. So every
 * workflow promise paid for jest mapping its stack (about 6% of an integration file's CPU). Errors
 * of other realms than the process's and the running file's now get Node's own format: a workflow
 * error's stack in a test's output shows bundle positions, not sources.
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

/** The realms whose errors jest's formatter maps: the process's and the running file's. */
const mappedRealms = new Set<unknown>([Function]);
/** Node's format (lib/internal/errors.js), for errors of other realms. */
function unmappedStack(error: unknown, callSites: readonly NodeJS.CallSite[]): string {
  const head = Error.prototype.toString.call(error);
  return callSites.length ? `${head}\n    at ${callSites.join('\n    at ')}` : head;
}
type StackFormatter = NonNullable<typeof Error.prepareStackTrace>;
/** The formatter set last (jest's, or one that code sets for a moment to read call sites). */
let formatter: StackFormatter | undefined = Error.prepareStackTrace;
/** What `Error.prepareStackTrace` reads as: each formatter, realm-aware; written back, the formatter itself. */
const realmAware = new WeakMap<StackFormatter, StackFormatter>();
const formatterOf = new WeakMap<StackFormatter, StackFormatter>();
function realmAwareOf(format: StackFormatter): StackFormatter {
  let wrapped = realmAware.get(format);
  if (!wrapped) {
    wrapped = (error, callSites) => {
      const realmFunction = (error as { constructor?: { constructor?: unknown } } | null)?.constructor?.constructor;
      return mappedRealms.has(realmFunction) ? format(error, callSites) : unmappedStack(error, callSites);
    };
    realmAware.set(format, wrapped);
    formatterOf.set(wrapped, format);
  }
  return wrapped;
}
Object.defineProperty(Error, 'prepareStackTrace', {
  configurable: true,
  get: () => (formatter ? realmAwareOf(formatter) : undefined),
  set: (value: StackFormatter | undefined) => {
    formatter = value ? (formatterOf.get(value) ?? value) : undefined;
  },
});

export default class TestEnvironment extends NodeEnvironment {
  override async setup(): Promise<void> {
    await super.setup();
    mappedRealms.add(this.global.Function);
  }

  override async teardown(): Promise<void> {
    mappedRealms.delete(this.global.Function);
    for (const stop of leftBehind.promiseHooks.splice(0)) stop();
    for (const used of leftBehind.storages) used.disable();
    leftBehind.storages.clear();
    await super.teardown();
  }
}
