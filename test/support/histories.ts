import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { findHistoryFiles } from '../../testing/history-files';
import { replayWorkflowId } from '../../worker/replay';

/**
 * The replay corpus: `test/histories/<version>/*.json`, one folder per released workflow
 * version, append-only. Every history in it must replay on the current workflow code.
 */
export const historiesDir = join(__dirname, '..', 'histories');

/** Histories in here were altered on purpose and must fail replay with a determinism violation. */
export const mutatedHistoriesDir = join(historiesDir, 'mutated');

/** `sha256  path` of every history file ever committed, in the order they were added. */
export const manifestPath = join(historiesDir, 'MANIFEST');

/** The corpus paths retired from replay (whole version folders), with the release and the reason. */
export const retiredPath = join(historiesDir, 'RETIRED');

/**
 * Histories recorded before the support window, copied byte for byte from the corpus before it
 * retired them: the refusal tests replay them.
 */
export const outsideWindowDir = join(__dirname, '..', 'fixtures', 'outside-window');

/** A history file of the corpus. */
export interface CorpusHistory {
  /** Path below test/histories with `/` separators, e.g. `0.1.0/basic.json`. */
  readonly name: string;
  readonly file: string;
  readonly history: temporal.api.history.v1.IHistory;
}

/** The corpus path of a file, e.g. `0.1.0/basic.json`. */
export function corpusName(file: string): string {
  return relative(historiesDir, file).split(sep).join('/');
}

/** Loads the histories below `dir` (recursively), skipping folders named in `skipDirs`. */
export function loadHistories(dir: string, skipDirs: readonly string[] = []): CorpusHistory[] {
  return findHistoryFiles(dir, skipDirs).map((file) => ({ name: corpusName(file), file, history: historyFromJSON(JSON.parse(readFileSync(file, 'utf8'))) }));
}

/** The histories every later workflow version must replay: the whole corpus except mutated/. */
export function corpusHistories(): CorpusHistory[] {
  return loadHistories(historiesDir, ['mutated']);
}

/** sha256 of a file, hex. */
export function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** One line of the manifest. */
export interface ManifestEntry {
  readonly sha256: string;
  readonly name: string;
}

/**
 * Parses a manifest text (`<sha256>  <path>` per line, as `sha256sum` writes and `sha256sum -c`
 * checks; `#` starts a comment).
 *
 * @throws Error naming the line that is not such an entry.
 */
export function parseManifest(text: string): ManifestEntry[] {
  const entries: ManifestEntry[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim() || line.startsWith('#')) return;
    const m = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
    if (!m?.[1] || !m[2]) throw new Error(`MANIFEST line ${i + 1} is not "<sha256>  <path>": ${JSON.stringify(line)}`);
    entries.push({ sha256: m[1], name: m[2] });
  });
  return entries;
}

/** One line of RETIRED. */
export interface RetiredEntry {
  /** A corpus path: a version folder (`0.1.0`) or one file. */
  readonly path: string;
  /** The release whose code no longer replays it. */
  readonly release: string;
  readonly reason: string;
}

/**
 * Parses RETIRED (`<path>  <release>  <why>` per line; `#` starts a comment).
 *
 * @throws Error naming the line that is not such an entry, or has no reason.
 */
export function parseRetired(text: string): RetiredEntry[] {
  const entries: RetiredEntry[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim() || line.startsWith('#')) return;
    const m = /^(\S+) {2}(\d+\.\d+\.\d+) {2}(\S.*)$/.exec(line);
    if (!m?.[1] || !m[2] || !m[3]) throw new Error(`RETIRED line ${i + 1} is not "<path>  <release>  <why>": ${JSON.stringify(line)}`);
    entries.push({ path: m[1].replace(/\/$/, ''), release: m[2], reason: m[3] });
  });
  return entries;
}

/** The committed RETIRED list, or none. */
export function readRetired(): RetiredEntry[] {
  return existsSync(retiredPath) ? parseRetired(readFileSync(retiredPath, 'utf8')) : [];
}

/** Whether a corpus path is, or is below, one of the retired paths. */
export function isRetired(name: string, retired: readonly RetiredEntry[]): boolean {
  return retired.some((r) => name === r.path || name.startsWith(`${r.path}/`));
}

/**
 * The histories of a retired version folder, read from git as of the last commit that had them (readers of old runs, like the checkpoint reader, are still tested on them);
 * undefined outside a git checkout.
 */
export function retiredHistories(version: string): { name: string; json: unknown }[] | undefined {
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: join(historiesDir, '..', '..'), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  try {
    const lastChange = git('rev-list', '-1', 'HEAD', '--', `test/histories/${version}`).trim();
    if (!lastChange) return undefined;
    // The last commit that touched the folder removed it (or, before that is committed, still has it).
    const present = (commit: string): boolean => git('ls-tree', '--name-only', `${commit}:test/histories`).split('\n').includes(version);
    const tree = `${present(lastChange) ? lastChange : `${lastChange}^`}:test/histories/${version}`;
    const files = git('ls-tree', '--name-only', tree)
      .split('\n')
      .filter((f) => f.endsWith('.json'));
    // One git process for all the files (a `git show` each cost a process per history).
    const blobs = readBlobs(join(historiesDir, '..', '..'), files.map((f) => `${tree}/${f}`));
    return files.map((f, i) => ({ name: `${version}/${f}`, json: JSON.parse(blobs[i] as string) as unknown }));
  } catch {
    return undefined;
  }
}

/** The contents of `<rev>:<path>` objects, in order, read by one `git cat-file --batch`. */
function readBlobs(cwd: string, objects: readonly string[]): string[] {
  const out = execFileSync('git', ['cat-file', '--batch'], { cwd, input: objects.map((o) => `${o}\n`).join(''), maxBuffer: 512 * 1024 * 1024 });
  const blobs: string[] = [];
  let at = 0;
  for (const object of objects) {
    const headerEnd = out.indexOf(10, at);
    const header = out.subarray(at, headerEnd).toString('utf8');
    const size = Number(/^\S+ blob (\d+)$/.exec(header)?.[1]);
    if (!Number.isInteger(size)) throw new Error(`git cat-file: no blob ${object} (${header})`);
    blobs.push(out.subarray(headerEnd + 1, headerEnd + 1 + size).toString('utf8'));
    at = headerEnd + 1 + size + 1;
  }
  return blobs;
}

/** The committed manifest, or no entries when it does not exist yet. */
export function readManifest(): ManifestEntry[] {
  return existsSync(manifestPath) ? parseManifest(readFileSync(manifestPath, 'utf8')) : [];
}

/** The summary a history event's command carried (the one line the Temporal UI shows), if any. */
export function eventSummary(event: temporal.api.history.v1.IHistoryEvent): string | undefined {
  const payload = event.userMetadata?.summary;
  return payload ? defaultPayloadConverter.fromPayload<string>(payload) : undefined;
}

/**
 * Replays histories in ONE replay worker (one reusable context, as a worker runs them) and
 * returns every failure by history name, and the names replayed, in order. A session replays
 * under its recorded workflow id (its runs' ids derive from it: `replayWorkflowId`), any other
 * history under `<prefix>-<name>`.
 */
export async function replayCorpus(
  histories: readonly CorpusHistory[],
  workflowBundle: WorkflowBundleOption,
  prefix: string,
): Promise<{ failed: string[]; replayed: number; names: string[] }> {
  async function* all() {
    for (const h of histories) yield { workflowId: replayWorkflowId(h.history, `${prefix}-${h.name}`), history: h.history };
  }
  const failed: string[] = [];
  const names: string[] = [];
  // The replay worker answers one history at a time, in order.
  for await (const result of Worker.runReplayHistories({ workflowBundle }, all())) {
    const name = histories[names.length]?.name ?? result.workflowId;
    names.push(name);
    if (result.error) failed.push(`${name}: ${result.error.name}: ${result.error.message}`);
  }
  return { failed, replayed: names.length, names };
}
