import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiVersion } from '../../server/app';
import { releases } from '../../workflows/versioning/patches';

const root = join(__dirname, '../..');
const packageVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

/** `1.0.0` of `1.0.0-rc.0`: the release a version is (a candidate of). */
function releaseOf(version: string): string {
  return version.replace(/-.*$/, '');
}

describe('the package version', () => {
  it('names the newest release of the workflow code, or a candidate of it', () => {
    expect(packageVersion).toMatch(/^\d+\.\d+\.\d+(-rc\.\d+)?$/);
    expect(releaseOf(packageVersion)).toBe(releases[0]?.release);
  });

  it("is the release the changelog's newest heading is about, and the HTTP API's version", () => {
    const heading = /^## (.+)$/m.exec(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'))?.[1];
    expect(heading).toContain(`(${releaseOf(packageVersion)})`);
    expect(apiVersion).toBe(packageVersion);
  });
});
