import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { findHistoryFiles } from '../../testing/history-files';
import { corpusName, historiesDir, parseManifest, readManifest, sha256File, type ManifestEntry } from '../support/histories';

const repoRoot = join(__dirname, '..', '..');
const manifest = readManifest();

/** Every committed version of MANIFEST, oldest first; undefined outside a git checkout. */
function committedManifests(): { commit: string; entries: ManifestEntry[] }[] | undefined {
  try {
    const commits = execFileSync('git', ['log', '--reverse', '--format=%H', '--', 'test/histories/MANIFEST'], { cwd: repoRoot, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    return commits.map((commit) => ({
      commit,
      entries: parseManifest(execFileSync('git', ['show', `${commit}:test/histories/MANIFEST`], { cwd: repoRoot, encoding: 'utf8' })),
    }));
  } catch {
    return undefined;
  }
}

describe('the replay corpus is append-only', () => {
  it('has a manifest entry for every history file, and a file for every entry', () => {
    const listed = new Set(manifest.map((e) => e.name));
    const files = findHistoryFiles(historiesDir).map(corpusName);
    expect(files.filter((f) => !listed.has(f))).toEqual([]);
    expect([...listed].filter((f) => !files.includes(f))).toEqual([]);
    expect(manifest.length).toBe(listed.size);
  });

  it('no recorded history has changed since it was recorded', () => {
    const changed = manifest
      .filter((e) => sha256File(join(historiesDir, e.name)) !== e.sha256)
      .map((e) => `${e.name} changed since it was recorded; recorded histories are append-only: record a new version (npm run histories) instead`);
    expect(changed).toEqual([]);
  });

  it('no committed manifest entry was ever removed or rewritten', () => {
    const versions = committedManifests();
    if (!versions) {
      console.warn('not a git checkout: the manifest history check is skipped');
      return;
    }
    const current = new Map(manifest.map((e) => [e.name, e.sha256]));
    const rewritten = versions.flatMap(({ commit, entries }) =>
      entries.filter((e) => current.get(e.name) !== e.sha256).map((e) => `${e.name} (recorded in ${commit.slice(0, 10)}) was removed or rewritten`),
    );
    expect(rewritten).toEqual([]);
  });

  it('names a malformed manifest line', () => {
    expect(() => parseManifest('# comment\nabc  0.1.0/x.json\n')).toThrow('MANIFEST line 2 is not "<sha256>  <path>": "abc  0.1.0/x.json"');
  });
});
