import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { findHistoryFiles } from '../../testing/history-files';
import {
  corpusName,
  historiesDir,
  isRetired,
  outsideWindowDir,
  parseManifest,
  parseRetired,
  readManifest,
  readRetired,
  sha256File,
} from '../support/histories';

const repoRoot = join(__dirname, '..', '..');
const manifest = readManifest();
const retired = readRetired();

/** Every committed version of a corpus file, oldest first; undefined outside a git checkout. */
function committedVersions<T>(file: string, parse: (text: string) => T): { commit: string; entries: T }[] | undefined {
  try {
    const commits = execFileSync('git', ['log', '--reverse', '--format=%H', '--', `test/histories/${file}`], { cwd: repoRoot, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    return commits.map((commit) => ({
      commit,
      entries: parse(execFileSync('git', ['show', `${commit}:test/histories/${file}`], { cwd: repoRoot, encoding: 'utf8' })),
    }));
  } catch {
    return undefined;
  }
}

describe('the replay corpus is append-only, apart from whole versions retired through RETIRED', () => {
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

  it('no committed manifest entry was ever rewritten, nor removed unless its path is retired', () => {
    const versions = committedVersions('MANIFEST', parseManifest);
    if (!versions) {
      console.warn('not a git checkout: the manifest history check is skipped');
      return;
    }
    const current = new Map(manifest.map((e) => [e.name, e.sha256]));
    const rewritten = versions.flatMap(({ commit, entries }) =>
      entries
        .filter((e) => current.get(e.name) !== e.sha256 && !(current.get(e.name) === undefined && isRetired(e.name, retired)))
        .map((e) => `${e.name} (recorded in ${commit.slice(0, 10)}) was ${current.has(e.name) ? 'rewritten' : 'removed without being listed in RETIRED'}`),
    );
    expect(rewritten).toEqual([]);
  });

  it('a retired path has no file and no manifest entry left, and names its release and reason', () => {
    for (const r of retired) {
      expect({ path: r.path, exists: existsSync(join(historiesDir, r.path)) }).toEqual({ path: r.path, exists: false });
      expect(manifest.filter((e) => isRetired(e.name, [r])).map((e) => e.name)).toEqual([]);
      expect(r.reason.length).toBeGreaterThan(10);
    }
  });

  it('whole version folders are retired, never single histories of a version', () => {
    const partial = retired.filter((r) => /^\d+\.\d+\.\d+\//.test(r.path)).map((r) => r.path);
    expect(partial).toEqual([]);
  });

  it('no retired path comes back: RETIRED is append-only, and no manifest entry lies below a retired path', () => {
    const versions = committedVersions('RETIRED', parseRetired) ?? [];
    const now = new Set(retired.map((r) => r.path));
    expect(versions.flatMap(({ entries }) => entries.filter((e) => !now.has(e.path)).map((e) => e.path))).toEqual([]);
    expect(manifest.filter((e) => isRetired(e.name, retired)).map((e) => e.name)).toEqual([]);
  });

  it('the refusal fixtures are histories of retired versions, byte for byte as the corpus recorded them', () => {
    const fixtures = readdirSync(outsideWindowDir).filter((f) => f.endsWith('.json'));
    expect(fixtures.length).toBeGreaterThan(0);
    const everRecorded = new Map((committedVersions('MANIFEST', parseManifest) ?? []).flatMap(({ entries }) => entries.map((e) => [e.name, e.sha256] as const)));
    for (const fixture of fixtures) {
      // `0.8.0-basic.json` is the corpus's `0.8.0/basic.json`.
      const name = fixture.replace(/^(\d+\.\d+\.\d+)-/, '$1/');
      expect({ name, retired: isRetired(name, retired) }).toEqual({ name, retired: true });
      if (everRecorded.size) expect({ name, sha256: sha256File(join(outsideWindowDir, fixture)) }).toEqual({ name, sha256: everRecorded.get(name) });
    }
  });

  it('names a malformed manifest or RETIRED line', () => {
    expect(() => parseManifest('# comment\nabc  0.1.0/x.json\n')).toThrow('MANIFEST line 2 is not "<sha256>  <path>": "abc  0.1.0/x.json"');
    expect(() => parseRetired('# comment\n0.1.0  1.0.0\n')).toThrow('RETIRED line 2 is not "<path>  <release>  <why>": "0.1.0  1.0.0"');
  });
});
