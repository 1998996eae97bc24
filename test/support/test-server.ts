import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import Long from 'long';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { devServerSafetyArgs, searchAttributeArgs } from '../../testing/dev-server';

/*
 * The Temporal servers the integration tests run against. Like ./test-bundle, this module imports
 * no agent: jest's global setup loads it without the `durable-agents/*` module mapping.
 */

let runtimeInstalled = false;

/**
 * Keeps SDK logs to errors so test output stays readable: the tests fail activities and runs on
 * purpose (outages, bad agents, kills), and the SDK's warning for each failed attempt (its task
 * token and the whole failure, some thirty lines) made about 4,000 of the 5,000 lines of a CI log.
 */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
}

/**
 * An existing Temporal server to run the tests against instead of a dev server per file
 * (`DURABLE_AGENTS_TEST_SERVER=host:port`, namespace `DURABLE_AGENTS_TEST_NAMESPACE`, default
 * `default`), e.g. a cluster on PostgreSQL. The namespace needs the AgentName / AgentStatus
 * search attributes (deploy/temporal/setup-namespace.sh registers them).
 */
export function existingTestServer(env: NodeJS.ProcessEnv = process.env): { address: string; namespace: string } | undefined {
  const address = env.DURABLE_AGENTS_TEST_SERVER?.trim();
  if (!address) return undefined;
  return { address, namespace: env.DURABLE_AGENTS_TEST_NAMESPACE?.trim() || 'default' };
}

/**
 * The dev server that jest's global setup started for the integration files that can share one
 * (`DURABLE_AGENTS_SHARED_TEST_SERVER=host:port`, namespace `default`). Files never share task
 * queues (uniqueTaskQueue in ./test-env), so they can run against it side by side.
 */
export function sharedTestServer(env: NodeJS.ProcessEnv = process.env): { address: string; namespace: string } | undefined {
  const address = env.DURABLE_AGENTS_SHARED_TEST_SERVER?.trim();
  return address ? { address, namespace: 'default' } : undefined;
}

/**
 * A dev server of the official CLI (TEMPORAL_CLI_PATH, set by global setup) on loopback, with
 * the version check off, for one test file (or global setup); `teardown` stops it. Falls back
 * to the SDK download.
 */
export async function createOwnTestEnv(serverArgs: readonly string[] = []): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const cliPath = process.env.TEMPORAL_CLI_PATH;
  return TestWorkflowEnvironment.createLocal({
    server: {
      ...(cliPath ? { executable: { type: 'existing-path', path: cliPath } } : {}),
      ip: '127.0.0.1',
      extraArgs: [...devServerSafetyArgs, ...searchAttributeArgs, ...serverArgs],
    },
  });
}

/**
 * A namespace of the file's own on a running server, registered now with the search attributes
 * the dev servers start with (AgentName, AgentStatus, AgentTenant): for files whose assertions cover the whole
 * namespace (every run in a list, every open run in metrics), which other files' runs would
 * change, without a dev server of their own. Returns once the namespace takes requests.
 */
export async function ownNamespaceOn(address: string): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  const namespace = `test-${randomUUID()}`;
  const admin = await Connection.connect({ address });
  try {
    const { workflowService, operatorService } = admin;
    await workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(24 * 3600) } });
    const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
    // The server's namespace registry takes the new namespace on its next refresh: retry until it does.
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await operatorService.addSearchAttributes({ namespace, searchAttributes: { AgentName: keyword, AgentStatus: keyword, AgentTenant: keyword } });
        await workflowService.countWorkflowExecutions({ namespace, query: "AgentName = 'none'" });
        break;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`namespace ${namespace} on ${address} did not take requests within 60 s: ${String(err)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } finally {
    await admin.close();
  }
  return TestWorkflowEnvironment.createFromExistingServer({ address, namespace });
}

/** Where global setup keeps the shared dev server for global teardown (the same process). */
export const sharedServerKey = Symbol.for('durable-agents.shared-test-server');
