import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { bundleForkCapture } from '../../worker/fork';
import { bundleWorkflowsForTests, type BundleCache } from './bundle-cache';

/**
 * The test suite's workflows module (both examples' agents, and the test agents). This module
 * imports no agent itself: jest's global setup loads it without the `durable-agents/*` module
 * mapping, and the bundler resolves those imports on its own.
 */
export const testWorkflowsPath = require.resolve('./workflows');

/**
 * Bundles the test suite's workflows module; global setup's writes the run's bundle cache
 * (./bundle-cache) as it goes.
 */
export function buildTestBundle(cache?: BundleCache): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowsForTests(testWorkflowsPath, {}, cache);
}

/** Bundles the test suite's workflows module for forkRun (its `workflowBundle` option). */
export function buildTestForkBundle(): ReturnType<typeof bundleForkCapture> {
  return bundleForkCapture(testWorkflowsPath);
}

/**
 * The bundle of a workflows module, built once per test run: the first file that asks builds it and
 * keeps it beside the suite's bundle (in global setup's folder), later files read it (the MCP files
 * bundle the same module, about 4 s of CPU each time). Files that ask at the same time may both
 * build it; run without global setup, every call builds.
 */
export async function bundleOnce(workflowsPath: string): Promise<WorkflowBundleWithSourceMap> {
  const suiteBundle = process.env.DURABLE_AGENTS_TEST_BUNDLE;
  if (!suiteBundle) return bundleWorkflowsForTests(workflowsPath);
  const kept = join(dirname(suiteBundle), `bundle-${createHash('sha256').update(workflowsPath).digest('hex').slice(0, 16)}.json`);
  if (existsSync(kept)) return JSON.parse(await readFile(kept, 'utf8')) as WorkflowBundleWithSourceMap;
  const bundle = await bundleWorkflowsForTests(workflowsPath);
  // Written aside and renamed: a file that reads it never sees half of it.
  const partial = `${kept}.${process.pid}`;
  await writeFile(partial, JSON.stringify(bundle));
  await rename(partial, kept);
  return bundle;
}
