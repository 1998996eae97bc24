import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { corpusHistoryFiles, EmptyCorpusError } from './history-files';
import { bundleAgentWorkflows } from '../worker/create-worker';
import { replayHistoriesJson, type ReplayBundle, type ReplayOutcome } from '../worker/replay';

/** Options of {@link replayAgentHistories}. */
export interface ReplayHistoriesOptions {
  /** Your workflows module; bundled once for all histories. */
  readonly workflowsPath?: string;
  /** A prebuilt bundle instead of `workflowsPath`. */
  readonly workflowBundle?: ReplayBundle;
  /** Directories named here are skipped when walking a directory (e.g. `mutated`). */
  readonly skipDirs?: readonly string[];
  /**
   * `true`: a path that does not exist or holds no history gives no outcome. Default: such a
   * path is an error, since a replay test of no histories passes without checking anything.
   */
  readonly allowEmpty?: boolean;
}

/** The replay of one history file. */
export interface HistoryReplay {
  readonly file: string;
  readonly outcome: ReplayOutcome;
}

/**
 * Replays recorded histories (files, or directories walked for `*.json`) against your
 * workflows module, for your jest or vitest tests. Never throws on a bad history: each
 * outcome says whether it replayed, and if not, which event and command differed, that its
 * agent is not in the bundle, or that it was recorded before this version's support window
 * (`outside_support_window`, found before replay: finish such runs on a worker of the release
 * line the message names; {@link assertInSupportWindow} throws OutsideSupportWindowError for one).
 *
 * @throws Error when neither `workflowsPath` nor `workflowBundle` is given; when a path does not
 *   exist, a directory holds no `*.json` history or no path is given (naming it), unless
 *   `allowEmpty`.
 * @example
 * const results = await replayAgentHistories(['test/histories'], { workflowsPath: require.resolve('../src/workflows') });
 * expect(results.filter((r) => !r.outcome.ok)).toEqual([]);
 */
export async function replayAgentHistories(paths: string | readonly string[], options: ReplayHistoriesOptions): Promise<HistoryReplay[]> {
  const { workflowBundle, workflowsPath } = options;
  const bundleOnce = workflowBundle ? async () => workflowBundle : workflowsPath ? () => bundleAgentWorkflows(workflowsPath) : undefined;
  if (!bundleOnce) throw new Error('replayAgentHistories: give workflowsPath (your workflows module) or workflowBundle');
  let files: string[];
  try {
    files = corpusHistoryFiles(paths, options);
  } catch (err) {
    if (!(err instanceof EmptyCorpusError)) throw err;
    throw new Error(`replayAgentHistories: ${err.message}; pass allowEmpty: true to accept a corpus with none`);
  }
  // Nothing to replay: no bundle to build (seconds of CPU).
  if (files.length === 0) return [];
  const bundle = await bundleOnce();
  // One replay worker for all of them: creating one per history took most of a corpus's replay time.
  const outcomes = await replayHistoriesJson(
    files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as unknown),
    bundle,
  );
  return files.map((file, i) => ({ file: relative(process.cwd(), file) || file, outcome: outcomes[i]! }));
}
