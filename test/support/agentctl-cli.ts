import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { connectAgents, runAgentctl as runCommandLine } from '../../cli/cli';
import type { AgentSuite } from './agent-suite';
import { agentctlNodeArgs } from './agentctl-build';

const repoRoot = resolve(__dirname, '../..');

/** What one agentctl invocation printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment of an agentctl subprocess against a suite's dev server and task queue. */
export function agentctlEnv(suite: AgentSuite, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: suite.env.address,
    TEMPORAL_NAMESPACE: suite.env.namespace ?? 'default',
    TEMPORAL_TASK_QUEUE: suite.taskQueue,
    ...extra,
  };
}

/**
 * Runs an agentctl command line against a suite's dev server and task queue, with `stdin` as its
 * input (empty by default), in this process: the code the binary runs, minus the process around it
 * (cli/main.ts: the exit, a closed stdout). Each launch of the binary costs about 0.7 s of CPU
 * (Node's start, loading the client) that most commands do not need to test; the binary itself is
 * covered by {@link runAgentctlProcess} and `startAgentctl`.
 */
export function runAgentctl(suite: AgentSuite, args: readonly string[], stdin = ''): Promise<CliRun> {
  return runAgentctlWith(agentctlEnv(suite), args, stdin);
}

/**
 * Runs an agentctl command line in this process with `env` as its whole environment (the CLI reads
 * no other), prompts and output collected as the binary prints them.
 */
export async function runAgentctlWith(env: NodeJS.ProcessEnv, args: readonly string[], stdin = ''): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCommandLine(args, {
    stdout: (line) => {
      stdout += `${line}\n`;
    },
    stderr: (line) => {
      stderr += `${line}\n`;
    },
    env,
    terminal: {
      input: Readable.from(stdin ? [Buffer.from(stdin)] : [], { objectMode: false }),
      isTTY: false,
      prompt: (text) => {
        stdout += text;
      },
    },
    connect: connectAgents,
  });
  return { code, stdout, stderr };
}

/**
 * Runs the agentctl binary as a child process against a suite's dev server and task queue,
 * with `stdin` piped in (empty by default).
 */
export function runAgentctlProcess(suite: AgentSuite, args: readonly string[], stdin = ''): Promise<CliRun> {
  return runAgentctlBinaryWith(agentctlEnv(suite), args, stdin);
}

/**
 * Runs the agentctl binary in the repository root with `env` as its environment and `stdin` piped
 * in; killed after 90 s (under a test's 120 s), so a command that hangs fails with its output.
 */
export function runAgentctlBinaryWith(env: NodeJS.ProcessEnv, args: readonly string[], stdin = ''): Promise<CliRun> {
  return new Promise((done) => {
    const child = execFile(process.execPath, [...agentctlNodeArgs(), ...args], { cwd: repoRoot, env, timeout: 90_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

/**
 * agentctl's workflow code option for the test suite's workflows: the bundle global setup built
 * (`--workflow-bundle`, loaded as it is), or the module itself when run without it (bundled by
 * each command). A few cases give `--workflows` on purpose, to cover the bundling path.
 */
export function testWorkflowCodeArgs(): string[] {
  const bundle = process.env.DURABLE_AGENTS_TEST_BUNDLE;
  return bundle ? ['--workflow-bundle', bundle] : ['--workflows', resolve(repoRoot, 'test/support/workflows.ts')];
}

/** The non-empty lines of a text. */
export function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.length > 0);
}
