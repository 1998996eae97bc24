/**
 * `npm run api:report`: writes api/<entry>.api.md, every name each entry point exports with its
 * signature (scripts/entry-exports.ts). The reports are committed: a change to the public surface
 * shows in review as a diff of them, and a unit test (test/unit/entry-points.test.ts) fails while
 * they are stale.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { entryExports, repoRoot, type ExportedName } from './entry-exports';

export const apiReportDir = join(repoRoot, 'api');
export const apiReportCommand = 'npm run api:report';

/** The report of one entry point, as api/<entry>.api.md holds it. */
export function renderApiReport(entry: string, names: readonly ExportedName[]): string {
  const lines = [
    `# durable-agents/${entry}`,
    '',
    `<!-- Written by \`${apiReportCommand}\` from the sources; do not edit. Review its diff with the change. -->`,
    '',
    `${names.length} names.`,
    '',
  ];
  for (const exported of names) lines.push(`## ${exported.name} (${exported.kind})`, '', '```ts', exported.signature, '```', '');
  return lines.join('\n');
}

/** Every report, by file name (`client.api.md`). */
export function apiReports(exportsByEntry = entryExports()): Map<string, string> {
  return new Map([...exportsByEntry].map(([entry, names]) => [`${entry}.api.md`, renderApiReport(entry, names)]));
}

if (require.main === module) {
  const reports = apiReports();
  mkdirSync(apiReportDir, { recursive: true });
  for (const file of readdirSync(apiReportDir)) if (file.endsWith('.api.md') && !reports.has(file)) rmSync(join(apiReportDir, file));
  for (const [file, text] of reports) writeFileSync(join(apiReportDir, file), text);
  console.log(`wrote ${[...reports.keys()].map((file) => `api/${file}`).join(', ')}`);
}
