import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { AgentSuite } from './agent-suite';
import { agentctlEnv, type CliRun } from './agentctl-cli';
import { agentctlNodeArgs } from './agentctl-build';

const repoRoot = resolve(__dirname, '../..');

/** An agentctl subprocess a test watches while it runs (a follower, a command that waits). */
export interface AgentctlProcess {
  /** Resolves with stdout so far once a line of it matches (fails after `timeoutMs`). */
  printed(line: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves when the process exits: its code (-1 when killed by a signal) and output. */
  readonly exited: Promise<CliRun & { signal: NodeJS.Signals | null }>;
}

/**
 * Starts the real agentctl against a suite's dev server and task queue (extra variables in
 * `env`); SIGKILLed after `limitMs` so a command that hangs fails the test instead of the run.
 */
export function startAgentctl(suite: AgentSuite, args: readonly string[], options: { env?: Record<string, string>; limitMs?: number } = {}): AgentctlProcess {
  const child = spawn(process.execPath, [...agentctlNodeArgs(), ...args], {
    cwd: repoRoot,
    env: agentctlEnv(suite, options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    for (const wake of waiters) wake();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const limit = setTimeout(() => child.kill('SIGKILL'), options.limitMs ?? 90_000);
  const exited = new Promise<CliRun & { signal: NodeJS.Signals | null }>((done) => {
    child.once('close', (code, signal) => {
      clearTimeout(limit);
      for (const wake of waiters) wake();
      done({ code: code ?? -1, signal, stdout, stderr });
    });
  });
  const printed = (line: RegExp, timeoutMs = 30_000): Promise<string> =>
    new Promise((done, fail) => {
      const check = (): void => {
        if (stdout.split('\n').some((l) => line.test(l))) finish(() => done(stdout));
        else if (child.exitCode !== null || child.signalCode !== null) finish(() => fail(new Error(`agentctl exited before printing ${line}: ${stdout}${stderr}`)));
      };
      const timer = setTimeout(() => finish(() => fail(new Error(`agentctl printed no line matching ${line} in ${timeoutMs} ms: ${stdout}${stderr}`))), timeoutMs);
      const finish = (then: () => void): void => {
        clearTimeout(timer);
        waiters.delete(check);
        then();
      };
      waiters.add(check);
      check();
    });
  return { printed, exited };
}
