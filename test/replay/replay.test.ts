import { DeterminismViolationError } from '@temporalio/workflow';
import { readFile } from 'node:fs/promises';
import { Worker } from '@temporalio/worker';
import { corpusHistories, loadHistories, mutatedHistoriesDir } from '../support/histories';
import { bundleAgentWorkflows } from '../../worker/create-worker';
import { quietRuntime, testWorkflowsPath, workflowBundleOption } from '../support/test-env';

const corpus = corpusHistories();
const mutated = loadHistories(mutatedHistoriesDir);

beforeAll(() => quietRuntime());

describe('every recorded history of every workflow version replays on the current workflow code', () => {
  it('the corpus holds the histories of each recorded version, open runs included', () => {
    const versions = new Set(corpus.map((h) => h.name.split('/')[0]));
    expect(versions.has('0.1.0')).toBe(true);
    expect(corpus.filter((h) => /\/open-/.test(h.name)).length).toBeGreaterThanOrEqual(5);
    expect(corpus.length).toBeGreaterThanOrEqual(21);
  });

  it.each(corpus.map((h) => [h.name, h.history] as const))('%s replays without a determinism violation', async (name, history) => {
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundleOption() }, history, `replay-${name}`)).resolves.toBeUndefined();
  });

  it.each(mutated.map((h) => [h.name, h.history] as const))('mutated %s fails with a determinism violation', async (name, history) => {
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundleOption() }, history, `replay-${name}`)).rejects.toBeInstanceOf(
      DeterminismViolationError,
    );
  });
});

/** The code of a bundle option (global setup's bundle file, or code built in this process). */
async function bundleCode(option: { codePath: string } | { code: string }): Promise<string> {
  return 'code' in option ? option.code : readFile(option.codePath, 'utf8');
}

/** The body of the bundle's `preloadModules` function: the modules each reusable context preloads. */
function preloadedModules(code: string): string {
  return /preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code)?.[1] ?? '';
}

/** Replays the whole corpus in ONE replay worker (one reusable context); returns the failures and how many replayed. */
/**
 * A guard against a hung replay, not a timing check: the corpus is append-only and grows with
 * every release, and in CI's long single process a whole-corpus replay took 75 s of the default 120.
 */
const corpusTimeoutMs = 600_000;

async function replayCorpusInOneWorker(workflowBundle: { codePath: string } | { code: string }, prefix: string): Promise<{ failed: string[]; replayed: number }> {
  async function* histories() {
    for (const h of corpus) yield { workflowId: `${prefix}-${h.name}`, history: h.history };
  }
  const failed: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle }, histories())) {
    replayed += 1;
    if (result.error) failed.push(`${result.workflowId}: ${String(result.error)}`);
  }
  return { failed, replayed };
}

describe('zod is evaluated once per worker thread and shared by executions (workflows/zod-preload.ts)', () => {
  let unshared: { code: string };
  beforeAll(async () => {
    unshared = { code: (await bundleAgentWorkflows(testWorkflowsPath, { shareZod: false })).code };
  });

  it('the bundle preloads zod: its preload function requires the zod-preload module', async () => {
    expect(preloadedModules(await bundleCode(await workflowBundleOption()))).toMatch(/zod-preload/);
    expect(preloadedModules(unshared.code)).not.toMatch(/zod-preload/);
  });

  it('every corpus history replays in one replay worker, whose executions all use the one frozen zod', async () => {
    // One worker, one reusable context: the first execution finds zod preloaded and frozen, the
    // rest find the schema classes it used (and their installed members) already there.
    const { failed, replayed } = await replayCorpusInOneWorker(await workflowBundleOption(), 'shared');
    expect(failed).toEqual([]);
    expect(replayed).toBe(corpus.length);
  }, corpusTimeoutMs);

  it('a bundle built with shareZod: false replays the corpus too (zod evaluated per execution)', async () => {
    const { failed, replayed } = await replayCorpusInOneWorker(unshared, 'unshared');
    expect(failed).toEqual([]);
    expect(replayed).toBe(corpus.length);
  }, corpusTimeoutMs);
});

describe("this package's TypeScript compiles to ES2022 in the bundle (worker/bundle-target.ts); the corpus above replays on it", () => {
  it("the bundle compiles this package's sources at ES2022: no object-spread or optional-chaining helpers", async () => {
    const code = await bundleCode(await workflowBundleOption());
    expect(code).not.toMatch(/function _object_spread\(/);
    expect(code).not.toMatch(/=== null \|\| \w+ === void 0 \? void 0 :/);
  });

  it('the corpus replays on a bundle whose modules are concatenated (one scope per group, no per-module function)', async () => {
    const code = await bundleCode(await workflowBundleOption());
    expect(code).toContain(';// ./workflows/run-loop.ts');
    expect(code).not.toContain('/***/ "./workflows/run-loop.ts"');
  });
});
