import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

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
