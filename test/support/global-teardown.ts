import type { TestWorkflowEnvironment } from '@temporalio/testing';

/** Where global setup keeps the shared dev server for global teardown (same process). */
export const sharedServerKey = Symbol.for('durable-agents.shared-test-server');

/** Runs once after the integration tests: stops the dev server global setup started. */
export default async function globalTeardown(): Promise<void> {
  const slot = globalThis as Record<symbol, unknown>;
  const server = slot[sharedServerKey] as TestWorkflowEnvironment | undefined;
  delete slot[sharedServerKey];
  delete process.env.DURABLE_AGENTS_SHARED_TEST_SERVER;
  await server?.teardown();
}
