import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

// Registered when a test file first loads this module (jest evaluates it once per file): the
// file's temporary folders go when the file ends, so repeated runs leave nothing in the temp dir.
// (Global setup loads modules that import this one, outside any test file: no hook there.)
if (typeof afterAll === 'function') {
  afterAll(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
}

/** A new folder under the system's temp dir (`<prefix>XXXXXX`), removed when the test file ends. */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * Where global setup writes what the suite builds once (the workflow bundles, the fork bundle, the
 * bundles `bundleOnce` keeps); global teardown removes it. Both run in jest's main process.
 */
export function suiteBuildDir(): string {
  return join(tmpdir(), `durable-agents-test-${process.pid}`);
}
