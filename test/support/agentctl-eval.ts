import { join, resolve } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FakeOpenAIServer } from '../../testing/fake-model';
import { compileForTests } from './agentctl-build';
import { runAgentctlBinaryWith, runAgentctlWith, testWorkflowCodeArgs, type CliRun } from './agentctl-cli';

const repoRoot = resolve(__dirname, '../..');
let agentModule: Promise<string> | undefined;

/**
 * The test agents as a module agentctl can load with plain Node (`--agent-module`): one CommonJS
 * file, with `durable-agents/workflow` taken from the sources as the test bundle takes it.
 */
export function testAgentModule(): Promise<string> {
  agentModule ??= agentModuleForTests('test/support/agents.ts', 'eval-agents');
  return agentModule;
}

/**
 * A module of agent definitions (`entry`, from the repository root) compiled for agentctl's
 * `--agent-module`, with `durable-agents/workflow` taken from the sources.
 */
export function agentModuleForTests(entry: string, name: string): Promise<string> {
  return compileForTests(entry, name, { 'durable-agents/workflow': join(repoRoot, 'workflows/index.ts') });
}

/**
 * Runs agentctl with `args` in this process (see runAgentctl in ./agentctl-cli), with `env` added
 * to this process's environment.
 */
export function runAgentctl(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runAgentctlWith({ ...process.env, ...env }, args);
}

/** Runs the agentctl binary with `args`, with `env` added to this process's environment. */
export function runAgentctlBinary(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runAgentctlBinaryWith({ ...process.env, ...env }, args);
}

/**
 * Runs `agentctl eval …` (args from `eval` on) against the test workflows and agents (or
 * `agentModule`), on the test's server (`--address`), with the fake model as its model endpoint;
 * in this process, or with `binary` by the agentctl binary.
 */
export async function runAgentctlIn(
  env: TestWorkflowEnvironment,
  fake: FakeOpenAIServer,
  args: readonly string[],
  options: { readonly agentModule?: string; readonly binary?: boolean } = {},
): Promise<CliRun> {
  const fixed = [...testWorkflowCodeArgs(), '--agent-module', options.agentModule ?? (await testAgentModule()), '--address', env.address];
  const modelEnv = { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test-key' };
  return (options.binary ? runAgentctlBinary : runAgentctl)([...args, ...fixed], modelEnv);
}
