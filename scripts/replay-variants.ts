/**
 * Replays the corpus (test/histories, the support window's versions) on variants of the workflow
 * bundle that CI does not build: with the tracing interceptors, and with zod evaluated per
 * execution instead of preloaded once per worker thread. Run it when a change touches the
 * bundler settings, the interceptors or the preloaded modules (CONTRIBUTING.md):
 *
 *   npm run test:replay-variants
 *
 * Exits 1 and names every history that fails on a variant.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { bundleAgentWorkflows } from '../worker/create-worker';
import { replayHistoriesJson } from '../worker/replay';
import { corpusHistories } from '../test/support/histories';
import { testWorkflowsPath } from '../test/support/test-bundle';
import { readFileSync } from 'node:fs';

const variants: readonly { name: string; options: Parameters<typeof bundleAgentWorkflows>[1] }[] = [
  { name: 'traced bundle (tracing: true)', options: { tracing: true } },
  { name: 'zod per execution (shareZod: false)', options: { shareZod: false } },
];

async function main(): Promise<number> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const corpus = corpusHistories();
  const jsons = corpus.map((h) => JSON.parse(readFileSync(h.file, 'utf8')) as unknown);
  let failures = 0;
  for (const variant of variants) {
    const started = Date.now();
    const bundle = { code: (await bundleAgentWorkflows(testWorkflowsPath, variant.options)).code };
    const outcomes = await replayHistoriesJson(jsons, bundle);
    const failed = outcomes.flatMap((o, i) => (o.ok ? [] : [`  ${corpus[i]!.name}: ${o.problem}`]));
    failures += failed.length;
    console.log(`${variant.name}: ${outcomes.length - failed.length} of ${outcomes.length} replayed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    for (const line of failed) console.log(line);
  }
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
