import { mkdirSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repoRoot = resolve(__dirname, '../..');

/**
 * Where global setup writes agentctl compiled once, for the integration tests' many launches. It
 * must sit one folder below the repository root: the CLI finds the workflow sources (for `fork`)
 * relative to its own file, as the published `dist/cli/main.js` does.
 */
const builtPath = join(repoRoot, '.test-build', 'agentctl.cjs');

/**
 * Compiles agentctl (`cli/main.ts`) into one CommonJS file with esbuild, the compiler tsx uses,
 * dependencies left as they are. A launch then skips tsx's start and compiling about a hundred
 * modules: a second of CPU less each, and the tests launch it about eighty times.
 */
export async function buildAgentctl(): Promise<string> {
  const esbuild = await import('esbuild');
  mkdirSync(join(repoRoot, '.test-build'), { recursive: true });
  // Written aside and renamed: two test runs in one checkout never see half a file.
  const partial = `${builtPath}.${process.pid}`;
  await esbuild.build({
    entryPoints: [join(repoRoot, 'cli/main.ts')],
    outfile: partial,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  renameSync(partial, builtPath);
  return builtPath;
}

/**
 * The node arguments that start agentctl: the file global setup compiled
 * (DURABLE_AGENTS_TEST_AGENTCTL), else the sources through tsx (a test file run on its own).
 */
export function agentctlNodeArgs(): string[] {
  const built = process.env.DURABLE_AGENTS_TEST_AGENTCTL;
  return built ? ['--enable-source-maps', built] : ['--import', 'tsx', join(repoRoot, 'cli/main.ts')];
}
