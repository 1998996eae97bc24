import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { rmSync } from 'node:fs';
import { sharedServerKey } from './test-server';
import { suiteBuildDir } from './temp-dir';

/** Runs once after the integration tests: stops the dev server global setup started and removes what it built. */
export default async function globalTeardown(): Promise<void> {
  rmSync(suiteBuildDir(), { recursive: true, force: true });
  const slot = globalThis as Record<symbol, unknown>;
  const server = slot[sharedServerKey] as TestWorkflowEnvironment | undefined;
  delete slot[sharedServerKey];
  delete process.env.DURABLE_AGENTS_SHARED_TEST_SERVER;
  await server?.teardown();
}
