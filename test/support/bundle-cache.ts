import { createHash } from 'node:crypto';
import { bundleWorkflowCode, type BundleOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { agentBundleOptions } from '../../worker/create-worker';

/**
 * Webpack's filesystem cache for the workflow bundles one test run builds. Global setup's bundle
 * of the suite's workflows module writes it (into the run's build folder, removed by global
 * teardown); the bundles the files build later read it and compile only the modules it lacks:
 * the library's workflow code, zod and the SDK's workflow package are the same in all of them.
 * Read-only after global setup, because webpack's cache is not safe to write from several
 * processes at once, and jest runs several. Measured alone: the suite's module 6.6 s of CPU
 * without the cache, 8.9 s writing it, 2.5 s reading it; the watchlist example's 6.7 s without,
 * 4.0 s reading the suite's. The output is the same, byte for byte.
 */
export const bundleCacheEnv = 'DURABLE_AGENTS_TEST_BUNDLE_CACHE';

/** Where a bundle reads (or, in global setup, writes) the cache. */
export interface BundleCache {
  readonly directory: string;
  readonly readonly: boolean;
}

/**
 * The bundler's options with webpack's filesystem cache. The cache is named after the resolve
 * settings: webpack keys cached resolutions by request, not by aliases, so a bundle that aliased
 * a module differently (as the fork capture bundle does, which does not use this cache) would read
 * a cache of its own name instead of wrong resolutions.
 */
function withBundleCache(options: BundleOptions, cache: BundleCache): BundleOptions {
  const hook = options.webpackConfigHook ?? ((config) => config);
  return {
    ...options,
    webpackConfigHook: (config) => {
      const configured = hook(config);
      const name = createHash('sha256').update(JSON.stringify(configured.resolve ?? {})).digest('hex').slice(0, 16);
      return { ...configured, cache: { type: 'filesystem', cacheDirectory: cache.directory, name, readonly: cache.readonly } };
    },
  };
}

/** The run's cache for reading, once global setup has written it. */
function runCache(): BundleCache | undefined {
  const directory = process.env[bundleCacheEnv];
  return directory ? { directory, readonly: true } : undefined;
}

/**
 * Bundles a workflows module as `bundleAgentWorkflows` does (same options, same output), reading
 * the run's cache when global setup wrote one (`cache` for global setup's own, which writes it).
 */
export function bundleWorkflowsForTests(workflowsPath: string, options: Parameters<typeof agentBundleOptions>[1] = {}, cache = runCache()): Promise<WorkflowBundleWithSourceMap> {
  const bundlerOptions = agentBundleOptions(workflowsPath, options);
  return bundleWorkflowCode(cache ? withBundleCache(bundlerOptions, cache) : bundlerOptions);
}
