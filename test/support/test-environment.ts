/**
 * The test environment of every test file: Node's, plus the removal of what a file left behind in
 * its jest worker process once the file has ended (after its own `afterAll` hooks), and two hooks
 * into Node that the suite does without.
 *
 * Jest gives each test file a module registry of its own, but hooks into Node itself outlive it:
 * - V8 promise hooks. The SDK's workflow runtime installs one the first time a module registry
 *   runs workflows on the calling thread (a worker with `debugMode`, ./test-env's
 *   `inProcessWorkerOptions`, and the SDK's replay worker) and never removes it, counting on one
 *   copy of itself per process; every file that ran workflows added one more for good, so files
 *   late in a long run paid for every file before them (the UI stream's file took 166 s of CPU
 *   late in a full run against 50 s alone, and timed out in two runs of three). Hooks a file
 *   installs are now stopped when it ends.
 * - Each `AsyncLocalStorage` that has held a value stays on Node's list (until Node 22's
 *   async-context frames), and every async resource then visits all of them: the SDK's clients
 *   and activity contexts left three to seven a file.
 *
 * The SDK's hook above is not installed at all: it only collects the stacks the `__stack_trace`
 * query answers with (every promise created anywhere paid a lookup, every promise of workflow code
 * a stack capture and a source-map lookup per frame), and no test asks for them. Four integration
 * files, three interleaved pairs: 35.1, 29.6, 31.8 -> 28.8, 29.6, 30.3 s of CPU. Workflows'
 * unhandled rejections do not need it (the SDK finds their run by the promise's realm).
 *
 * And jest's source-mapping stack formatter, which it installs as the process's
 * `Error.prepareStackTrace`: Node calls that for errors of every realm, the workflow sandboxes'
 * too, and the SDK maps those stacks itself with its own formatter (under jest installed in the
 * test file's realm, so never called). Mapping each workflow error's stack twice cost about 6% of
 * an integration file's CPU while the SDK's hook made one error per workflow promise. Errors of
 * other realms than the process's and the running file's now get Node's own format: a workflow
 * error's stack in a test's output shows bundle positions, not sources.
 *
 * Each file's CPU time (its jest worker's, and its children's once they have ended) is appended
 * to the file `DURABLE_AGENTS_TEST_CPU_LOG` names, one JSON line per test file, when it is set:
 * what a change to the suite costs, file by file (scripts/test-costs.ts reads it; CONTRIBUTING.md,
 * "What the suite costs").
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { promiseHooks } from 'node:v8';
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import NodeEnvironment from 'jest-environment-node';
import { processCpuMs } from '../../bench/process-cpu';

/** What the file that runs now put into the process: undone when it ends. */
const leftBehind = { promiseHooks: [] as (() => void)[], storages: new Set<AsyncLocalStorage<unknown>>() };

/** Where the SDK's workflow runtime installs its stack-collecting promise hook. */
const sdkStackTraceHook = /[\\/]@temporalio[\\/]worker[\\/](lib|src)[\\/]workflow[\\/]vm-shared\.[jt]s/;

const createHook = promiseHooks.createHook.bind(promiseHooks);
promiseHooks.createHook = (hooks) => {
  if (sdkStackTraceHook.test(new Error().stack ?? '')) return () => {};
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

/** CPU seconds of this jest worker and of its children that have ended (0 where there is no /proc). */
const cpuSeconds = (): number => (processCpuMs('self', { endedChildren: true }) ?? 0) / 1000;

export default class TestEnvironment extends NodeEnvironment {
  private readonly testPath: string;
  private readonly cpuLog = process.env.DURABLE_AGENTS_TEST_CPU_LOG;
  private started = { cpu: 0, wall: 0 };

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    this.testPath = relative(config.globalConfig.rootDir, context.testPath);
  }

  override async setup(): Promise<void> {
    await super.setup();
    mappedRealms.add(this.global.Function);
    if (this.cpuLog) this.started = { cpu: cpuSeconds(), wall: Date.now() };
  }

  override async teardown(): Promise<void> {
    if (this.cpuLog) {
      const line = { file: this.testPath, cpuSeconds: +(cpuSeconds() - this.started.cpu).toFixed(2), wallSeconds: (Date.now() - this.started.wall) / 1000 };
      appendFileSync(this.cpuLog, `${JSON.stringify(line)}\n`);
    }
    mappedRealms.delete(this.global.Function);
    for (const stop of leftBehind.promiseHooks.splice(0)) stop();
    for (const used of leftBehind.storages) used.disable();
    leftBehind.storages.clear();
    await super.teardown();
  }
}
