import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { findHistoryFiles } from '../../testing/history-files';

/**
 * The replay corpus: `test/histories/<version>/*.json`, one folder per released workflow
 * version, append-only. Every history in it must replay on the current workflow code.
 */
export const historiesDir = join(__dirname, '..', 'histories');

/** Histories in here were altered on purpose and must fail replay with a determinism violation. */
export const mutatedHistoriesDir = join(historiesDir, 'mutated');

/** `sha256  path` of every history file ever committed, in the order they were added. */
export const manifestPath = join(historiesDir, 'MANIFEST');

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

/** The committed manifest, or no entries when it does not exist yet. */
export function readManifest(): ManifestEntry[] {
  return existsSync(manifestPath) ? parseManifest(readFileSync(manifestPath, 'utf8')) : [];
}

/** The summary a history event's command carried (the one line the Temporal UI shows), if any. */
export function eventSummary(event: temporal.api.history.v1.IHistoryEvent): string | undefined {
  const payload = event.userMetadata?.summary;
  return payload ? defaultPayloadConverter.fromPayload<string>(payload) : undefined;
}
