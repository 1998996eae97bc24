/**
 * The replay corpus on the current workflow code, replayed once: every history of every version
 * inside the support window, in one replay worker. Variants of the bundle (tracing interceptors,
 * zod evaluated per execution) replay it in `npm run test:replay-variants` (CONTRIBUTING.md).
 */
import { DeterminismViolationError } from '@temporalio/workflow';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { readFile } from 'node:fs/promises';
import { ReplayError, Worker } from '@temporalio/worker';
import { corpusHistories, loadHistories, mutatedHistoriesDir, outsideWindowDir, replayCorpus, type CorpusHistory } from '../support/histories';
import { forkBundleOption, quietRuntime, workflowBundleOption } from '../support/test-env';
import { supportWindow } from '../../workflows/versioning/support-window';
import { assertInSupportWindow, OutsideSupportWindowError, replayAgentHistories } from '../../testing';
import { replayHistoriesJson } from '../../worker/replay';
import { stateAtTurn } from '../../worker/fork';
import { patchMarkerIds } from '../../history/patch-markers';

const corpus = corpusHistories();
const mutated = loadHistories(mutatedHistoriesDir);
const outsideWindow = loadHistories(outsideWindowDir);

beforeAll(() => quietRuntime());

/**
 * A guard against a hung replay, not a timing check: the corpus grows with every release until
 * whole versions retire (test/histories/RETIRED).
 */
const corpusTimeoutMs = 600_000;

describe('every recorded history inside the support window replays on the current workflow code', () => {
  it('the corpus holds the versions of the window, open runs included, and none before it', () => {
    const versions = [...new Set(corpus.map((h) => h.name.split('/')[0]))];
    expect(versions).toContain(supportWindow.oldest);
    expect(versions.filter((v) => compareVersions(v!, supportWindow.oldest) < 0)).toEqual([]);
    expect(corpus.filter((h) => /\/open-/.test(h.name)).length).toBeGreaterThanOrEqual(5);
  });

  it('the corpus holds sessions (agentSession) of the window, open ones and ones that followed a new worker version included', () => {
    const sessions = corpus.filter((h) => workflowType(h) === 'agentSession');
    const versions = new Set(sessions.map((h) => h.name.split('/')[0]));
    expect(versions).toContain(supportWindow.oldest);
    expect(versions).toContain('0.13.0');
    expect(sessions.filter((h) => /\/open-session-/.test(h.name)).length).toBeGreaterThanOrEqual(1);
    // Recorded before 1.0.0: no baseline marker; the ones that moved recorded sessions-follow-new-versions.
    expect(sessions.filter((h) => (h.history.events ?? []).flatMap(patchMarkerIds).some((id) => id.startsWith('baseline-')))).toEqual([]);
    expect(sessions.filter((h) => (h.history.events ?? []).flatMap(patchMarkerIds).includes('sessions-follow-new-versions')).length).toBeGreaterThanOrEqual(1);
  });

  it('the whole corpus replays, once, in one replay worker; a failure names its history', async () => {
    const { failed, replayed, names } = await replayCorpus(corpus, await workflowBundleOption(), 'corpus');
    expect(failed).toEqual([]);
    expect(replayed).toBe(corpus.length);
    // Sessions among them, each under its own name (a session replays under its recorded workflow id).
    expect(names).toEqual(corpus.map((h) => h.name));
    expect(names.filter((n) => /\/(open-)?session-/.test(n)).length).toBeGreaterThan(0);
  }, corpusTimeoutMs);

  it("the users' replay tool (replayHistoriesJson) replays the sessions too, under their recorded workflow ids", async () => {
    const sessions = corpus.filter((h) => workflowType(h) === 'agentSession');
    const outcomes = await replayHistoriesJson(
      sessions.map((h) => JSON.parse(readFileSync(h.file, 'utf8')) as unknown),
      await workflowBundleOption(),
    );
    expect(sessions.map((h, i) => [h.name, outcomes[i]?.ok])).toEqual(sessions.map((h) => [h.name, true]));
  }, corpusTimeoutMs);

  it.each(mutated.map((h) => [h.name, h.history] as const))('mutated %s fails with a determinism violation', async (name, history) => {
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundleOption() }, history, `replay-${name}`)).rejects.toBeInstanceOf(
      DeterminismViolationError,
    );
  });
});

/**
 * The refusal of a fixture (`<release>-<scenario>.json`): runs of retired releases are named by
 * their baseline marker, runs before 0.9.0 recorded none.
 */
function refusal(fixture: string): string {
  const release = /^(?:outside-window\/)?(\d+\.\d+\.\d+)-/.exec(fixture)?.[1] ?? '';
  const [major, minor] = release.split('.').map(Number);
  const reason = major === 0 && minor! < 9 ? 'recorded by a release before 0.9.0 (no baseline marker)' : `recorded by release ${release} (marker baseline-${release})`;
  return `${reason}, outside this version's support window (≥ 0.13.0); finish it on a worker running ≤ 0.13.x`;
}

describe('a history recorded before the support window is refused, never reported as nondeterminism', () => {
  it.each(outsideWindow.map((h) => [`outside-window/${basename(h.file)}`, h.history] as const))(
    '%s: the workflow task fails with the window in its message (Worker.runReplayHistory reports a ReplayError)',
    async (name, history) => {
      const replay = Worker.runReplayHistory({ workflowBundle: await workflowBundleOption() }, history, `replay-${name}`);
      const error = await replay.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(ReplayError);
      expect(error).not.toBeInstanceOf(DeterminismViolationError);
      expect((error as Error).message).toContain(refusal(name));
    },
  );
});

/** The code of a bundle option (global setup's bundle file, or code built in this process). */
async function bundleCode(option: { codePath: string } | { code: string }): Promise<string> {
  return 'code' in option ? option.code : readFile(option.codePath, 'utf8');
}

/** The body of the bundle's `preloadModules` function: the modules each reusable context preloads. */
function preloadedModules(code: string): string {
  return /preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code)?.[1] ?? '';
}

/** The workflow type a history ran. */
function workflowType(h: CorpusHistory): string | undefined {
  return h.history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? undefined;
}

/** Orders `a.b.c` release numbers. */
function compareVersions(a: string, b: string): number {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if (x![i] !== y![i]) return x![i]! - y![i]!;
  return 0;
}

describe('the bundle the corpus replays on', () => {
  it('preloads zod (workflows/bundle/zod-preload.ts): zod is evaluated once per worker thread and shared by executions', async () => {
    expect(preloadedModules(await bundleCode(await workflowBundleOption()))).toMatch(/zod-preload/);
  });

  it("compiles this package's sources at ES2022 (worker/bundle-target.ts): no object-spread or optional-chaining helpers", async () => {
    const code = await bundleCode(await workflowBundleOption());
    expect(code).not.toMatch(/function _object_spread\(/);
    expect(code).not.toMatch(/=== null \|\| \w+ === void 0 \? void 0 :/);
  });

  it('concatenates its modules (one scope per group, no per-module function)', async () => {
    const code = await bundleCode(await workflowBundleOption());
    expect(code).toContain(';// ./workflows/run/run-loop.ts');
    expect(code).not.toContain('/***/ "./workflows/run/run-loop.ts"');
  });
});

describe('the replay tools users call refuse a history from before the window before replaying it', () => {
  const files = outsideWindow.map((h) => h.file);

  it('replayAgentHistories reports it as outside_support_window, with the window in its problem', async () => {
    const results = await replayAgentHistories(files, { workflowBundle: await workflowBundleOption() });
    expect(results.map((r) => r.outcome)).toEqual(
      files.map((file) => ({ ok: false, kind: 'outside_support_window', problem: refusal(basename(file)), detail: expect.any(String) })),
    );
  });

  it('assertInSupportWindow throws OutsideSupportWindowError for it, and nothing for a history inside the window', () => {
    for (const file of files) {
      const json = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      expect(() => assertInSupportWindow(json)).toThrow(OutsideSupportWindowError);
      expect(() => assertInSupportWindow(json)).toThrow(refusal(basename(file)));
    }
    for (const h of corpus.slice(0, 10)) expect(() => assertInSupportWindow(JSON.parse(readFileSync(h.file, 'utf8')) as unknown)).not.toThrow();
  });

  it('a fork (stateAtTurn) of such a run is refused with OutsideSupportWindowError before it is replayed', async () => {
    const { workflowBundle: bundle } = await forkBundleOption();
    for (const h of outsideWindow) await expect(stateAtTurn(h.history, 1, bundle)).rejects.toThrow(OutsideSupportWindowError);
  });
});
