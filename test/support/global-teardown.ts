import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { sharedServerKey } from './test-server';

/** Runs once after the integration tests: stops the dev server global setup started. */
export default async function globalTeardown(): Promise<void> {
  const slot = globalThis as Record<symbol, unknown>;
  const server = slot[sharedServerKey] as TestWorkflowEnvironment | undefined;
  delete slot[sharedServerKey];
  delete process.env.DURABLE_AGENTS_SHARED_TEST_SERVER;
  await server?.teardown();
}
