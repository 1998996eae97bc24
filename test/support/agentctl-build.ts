import { mkdirSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repoRoot = resolve(__dirname, '../..');

/**
 * Compiles one entry point into `.test-build/<name>.cjs`, a single CommonJS file, with esbuild
 * (the compiler tsx uses), dependencies left as they are. A process the tests launch from it skips
 * tsx's start and compiling its modules one by one: a second of CPU or more each launch. The file
 * sits one folder below the repository root, as the sources do: code that finds the workflow
 * sources relative to its own file (`fork` in agentctl, the bundler's own-source rule) finds them.
 * `alias` maps package imports to files (e.g. `durable-agents/workflow` to the sources).
 */
export async function compileForTests(entry: string, name: string, alias?: Record<string, string>): Promise<string> {
  const esbuild = await import('esbuild');
  const builtPath = join(repoRoot, '.test-build', `${name}.cjs`);
  mkdirSync(join(repoRoot, '.test-build'), { recursive: true });
  // Written aside and renamed: two test runs in one checkout never see half a file.
  const partial = `${builtPath}.${process.pid}`;
  await esbuild.build({
    entryPoints: [join(repoRoot, entry)],
    outfile: partial,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    ...(alias ? { alias } : {}),
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  renameSync(partial, builtPath);
  return builtPath;
}

/**
 * Compiles agentctl (`cli/main.ts`) once, where global setup keeps it for the integration tests'
 * launches (`runAgentctlProcess`, `startAgentctl`, the evaluations).
 */
export function buildAgentctl(): Promise<string> {
  return compileForTests('cli/main.ts', 'agentctl');
}

/**
 * The node arguments that start agentctl: the file global setup compiled
 * (DURABLE_AGENTS_TEST_AGENTCTL), else the sources through tsx (a test file run on its own).
 */
export function agentctlNodeArgs(): string[] {
  const built = process.env.DURABLE_AGENTS_TEST_AGENTCTL;
  return built ? ['--enable-source-maps', built] : ['--import', 'tsx', join(repoRoot, 'cli/main.ts')];
}
