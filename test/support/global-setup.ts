import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { provisionTemporalCli, temporalCliVersion } from '../../testing/temporal-cli';
import { buildAgentctl } from './agentctl-build';
import { buildWorkerProcess } from './child-worker';
import { bundleCacheEnv } from './bundle-cache';
import { buildTestBundle, buildTestForkBundle } from './test-bundle';
import { createOwnTestEnv, existingTestServer, sharedServerKey } from './test-server';
import { suiteBuildDir } from './temp-dir';

/**
 * Runs once before the integration tests: provisions the Temporal CLI, builds the workflow
 * bundles (for workers, and for forkRun), which every test file then loads from disk instead of
 * rebuilding, and with them the webpack cache the files' own bundles read (./bundle-cache),
 * compiles agentctl and the worker process once for the tests that launch them, and starts the
 * dev server the files share (unless DURABLE_AGENTS_TEST_SERVER names a server to use instead);
 * global teardown stops it.
 */
export default async function globalSetup(): Promise<void> {
  const cli = provisionTemporalCli();
  if (cli) {
    process.env.TEMPORAL_CLI_PATH = cli.path;
    process.stderr.write(`\nintegration tests use ${temporalCliVersion(cli.path)} at ${cli.path}\n`);
  } else {
    process.stderr.write('\nno Temporal CLI available; the SDK will download one\n');
  }
  const dir = suiteBuildDir();
  const bundleCache = join(dir, 'webpack-cache');
  const [bundle, forkBundle, server, agentctl, workerProcess] = await Promise.all([
    buildTestBundle({ directory: bundleCache, readonly: false }),
    buildTestForkBundle(),
    existingTestServer() ? undefined : createOwnTestEnv(),
    buildAgentctl(),
    buildWorkerProcess(),
  ]);
  process.env.DURABLE_AGENTS_TEST_AGENTCTL = agentctl;
  process.env.DURABLE_AGENTS_TEST_WORKER_PROCESS = workerProcess;
  process.env[bundleCacheEnv] = bundleCache;
  mkdirSync(dir, { recursive: true });
  const codePath = join(dir, 'workflow-bundle.js');
  writeFileSync(codePath, bundle.code);
  process.env.DURABLE_AGENTS_TEST_BUNDLE = codePath;
  const forkBundlePath = join(dir, 'fork-bundle.json');
  writeFileSync(forkBundlePath, JSON.stringify(forkBundle));
  process.env.DURABLE_AGENTS_TEST_FORK_BUNDLE = forkBundlePath;
  if (server) {
    (globalThis as Record<symbol, unknown>)[sharedServerKey] = server;
    process.env.DURABLE_AGENTS_SHARED_TEST_SERVER = server.address;
  }
}
