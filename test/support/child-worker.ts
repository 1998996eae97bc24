import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { compileForTests } from './agentctl-build';
import { testTempDir } from './temp-dir';

/** A worker process started by a test. */
export interface ChildWorker {
  readonly process: ChildProcess;
  /** Process id; the worker's Temporal identity (`lastWorkerIdentity`) is the SDK default `<pid>@<host>`. */
  readonly pid: number;
  /** False once the process has exited (killed, or crashed on its own). */
  alive(): boolean;
  /** Everything the process wrote to stderr so far (for failure messages). */
  stderr(): string;
  /** SIGKILL: the process dies at once, mid-task, like a crashed machine. */
  kill9(): Promise<void>;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
}

function waitExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Compiles test/support/worker-process.ts once (global setup), for every worker process the tests start. */
export function buildWorkerProcess(): Promise<string> {
  return compileForTests('test/support/worker-process.ts', 'worker-process');
}

/**
 * The node arguments that start a worker process: the file global setup compiled
 * (DURABLE_AGENTS_TEST_WORKER_PROCESS), else the sources through tsx (a test file run on its own).
 */
function workerProcessNodeArgs(): string[] {
  const built = process.env.DURABLE_AGENTS_TEST_WORKER_PROCESS;
  return built ? ['--enable-source-maps', built] : ['--import', 'tsx', join(__dirname, 'worker-process.ts')];
}

/** Starts test/support/worker-process.ts and waits until it polls. */
export async function startChildWorker(env: Record<string, string>): Promise<ChildWorker> {
  const child = spawn(process.execPath, workerProcessNodeArgs(), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker process not ready in 60 s: ${stderr}`)), 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker process exited (${code}) before ready: ${stderr}`));
    });
  });
  return {
    process: child,
    pid: child.pid ?? -1,
    alive: () => child.exitCode === null && child.signalCode === null,
    stderr: () => stderr,
    kill9: async () => {
      child.kill('SIGKILL');
      await waitExit(child);
    },
    stop: async () => {
      child.kill('SIGTERM');
      await waitExit(child);
    },
  };
}

/**
 * Runs every clean-up step in order, even when one fails (so no process or server is left
 * behind), then rethrows the first failure.
 */
export async function cleanUpAll(...steps: (() => Promise<unknown> | undefined)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      failures.push(err);
    }
  }
  if (failures.length) throw failures[0];
}

/**
 * Environment of a worker process for a server and task queue, with a fresh side-effect
 * file (returned too, so the test can count what the tools did).
 */
export function childWorkerEnv(address: string, namespace: string, taskQueue: string): { env: Record<string, string>; sideEffectFile: string } {
  const sideEffectFile = join(testTempDir('side-effects-'), 'effects.jsonl');
  return {
    sideEffectFile,
    env: {
      TEMPORAL_ADDRESS: address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      SIDE_EFFECT_FILE: sideEffectFile,
      DURABLE_AGENTS_TEST_BUNDLE: process.env.DURABLE_AGENTS_TEST_BUNDLE ?? '',
    },
  };
}
