import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * The history files at `path`: the file itself, or every `*.json` below a directory
 * (recursively, sorted by name), skipping directories named in `skipDirs`.
 *
 * @example findHistoryFiles('test/histories', ['mutated'])
 */
export function findHistoryFiles(path: string, skipDirs: readonly string[] = []): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = join(path, entry.name);
      if (entry.isDirectory()) return skipDirs.includes(entry.name) ? [] : findHistoryFiles(full, skipDirs);
      return entry.name.endsWith('.json') ? [full] : [];
    });
}

/** `test/histories (/home/me/project/test/histories)`: a relative path with where it resolved to. */
function named(path: string): string {
  return isAbsolute(path) ? path : `${path} (${resolve(path)})`;
}

/** A corpus path that holds no history (it does not exist, or has no `*.json` below it), or no path at all. */
export class EmptyCorpusError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmptyCorpusError';
  }
}

/**
 * The history files of a corpus: {@link findHistoryFiles} of each path, where each path must exist
 * and a directory must hold at least one history. A corpus of none passes every check made of it
 * without checking anything, so an empty or missing folder (a typo, a test run from another
 * directory, histories never committed) is an error unless `allowEmpty`, which skips such paths.
 *
 * @throws EmptyCorpusError naming the path that does not exist or holds no `*.json` history, or saying that
 *   no path was given.
 */
export function corpusHistoryFiles(paths: string | readonly string[], options: { readonly skipDirs?: readonly string[]; readonly allowEmpty?: boolean } = {}): string[] {
  const list = typeof paths === 'string' ? [paths] : paths;
  if (list.length === 0 && !options.allowEmpty) throw new EmptyCorpusError('no history paths given');
  return list.flatMap((path) => {
    if (!existsSync(path)) {
      if (options.allowEmpty) return [];
      throw new EmptyCorpusError(`${named(path)}: no such file or directory`);
    }
    const files = findHistoryFiles(path, options.skipDirs ?? []);
    if (files.length === 0 && !options.allowEmpty) throw new EmptyCorpusError(`${named(path)}: no *.json histories in this directory`);
    return files;
  });
}
