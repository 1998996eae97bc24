import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { findHistoryFiles } from './history-files';
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
 * @throws Error when neither `workflowsPath` nor `workflowBundle` is given, or a path does not exist.
 * @example
 * const results = await replayAgentHistories(['test/histories'], { workflowsPath: require.resolve('../src/workflows') });
 * expect(results.filter((r) => !r.outcome.ok)).toEqual([]);
 */
export async function replayAgentHistories(paths: string | readonly string[], options: ReplayHistoriesOptions): Promise<HistoryReplay[]> {
  const bundle = options.workflowBundle ?? (options.workflowsPath ? await bundleAgentWorkflows(options.workflowsPath) : undefined);
  if (!bundle) throw new Error('replayAgentHistories: give workflowsPath (your workflows module) or workflowBundle');
  const files = (typeof paths === 'string' ? [paths] : paths).flatMap((p) => findHistoryFiles(p, options.skipDirs ?? []));
  // One replay worker for all of them: creating one per history took most of a corpus's replay time.
  const outcomes = await replayHistoriesJson(
    files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as unknown),
    bundle,
  );
  return files.map((file, i) => ({ file: relative(process.cwd(), file) || file, outcome: outcomes[i]! }));
}
