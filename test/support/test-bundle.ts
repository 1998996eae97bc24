import { bundleAgentWorkflows } from '../../worker/create-worker';
import { bundleForkCapture } from '../../worker/fork';

/**
 * The test suite's workflows module (both examples' agents, and the test agents). This module
 * imports no agent itself: jest's global setup loads it without the `durable-agents/*` module
 * mapping, and the bundler resolves those imports on its own.
 */
export const testWorkflowsPath = require.resolve('./workflows');

/** Bundles the test suite's workflows module. */
export function buildTestBundle(): ReturnType<typeof bundleAgentWorkflows> {
  return bundleAgentWorkflows(testWorkflowsPath);
}

/** Bundles the test suite's workflows module for forkRun (its `workflowBundle` option). */
export function buildTestForkBundle(): ReturnType<typeof bundleForkCapture> {
  return bundleForkCapture(testWorkflowsPath);
}
