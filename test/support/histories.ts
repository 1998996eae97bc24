import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';

/** Folder of committed histories; every `*.json` directly in it must replay cleanly. */
export const historiesDir = join(__dirname, '..', 'histories');

/** Histories in here were altered on purpose and must fail replay with a determinism violation. */
export const mutatedHistoriesDir = join(historiesDir, 'mutated');

/** Loads every history file of a folder, by scenario name. */
export function loadHistories(dir: string): { name: string; history: temporal.api.history.v1.IHistory }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ''), history: historyFromJSON(JSON.parse(readFileSync(join(dir, f), 'utf8'))) }));
}
