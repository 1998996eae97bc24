/**
 * `npx tsx scripts/operations-doc.ts`: writes the table of operations in docs/operating-runs.md
 * (between its `operations` markers) from the operations tables: each operation's signal, update,
 * HTTP route, role and tree route. A unit test (test/unit/server-operations.test.ts) fails while
 * the page's table is not the tables'.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runOperations, sessionOperations, type AnyOperation } from '../server/operations';

export const operationsDocPath = join(__dirname, '..', 'docs', 'operating-runs.md');
export const operationsDocCommand = 'npx tsx scripts/operations-doc.ts';
const begin = `<!-- operations: written by \`${operationsDocCommand}\` from the operations tables; do not edit -->`;
const end = '<!-- /operations -->';

function code(text: string | undefined): string {
  return text === undefined ? '' : `\`${text}\``;
}

function row(resource: string, op: AnyOperation): string {
  const tree = op.tree ? `\`POST ${resource}/:id/tree/${op.path}\` \`{ path, ${op.tree.field} }\`` : '';
  return `| ${code(op.name)} | ${code(op.signal?.name)} | ${code(op.update?.name)} | \`POST ${resource}/:id/${op.path}\` | ${op.access} | ${tree} |`;
}

/** The table, as the page holds it between its markers. */
export function renderOperationsTable(): string {
  return [
    begin,
    '| operation | signal | update | HTTP | role | tree variant |',
    '|---|---|---|---|---|---|',
    ...runOperations.map((op) => row('/api/runs', op)),
    ...sessionOperations.map((op) => row('/api/sessions', op)),
    end,
  ].join('\n');
}

/** The table the page holds now, or undefined without markers. */
export function documentedOperationsTable(page = readFileSync(operationsDocPath, 'utf8')): string | undefined {
  const from = page.indexOf(begin);
  const to = page.indexOf(end);
  return from < 0 || to < from ? undefined : page.slice(from, to + end.length);
}

if (require.main === module) {
  const page = readFileSync(operationsDocPath, 'utf8');
  const current = documentedOperationsTable(page);
  if (current === undefined) throw new Error(`${operationsDocPath} has no markers ${begin} … ${end}: put them where the table goes`);
  writeFileSync(operationsDocPath, page.replace(current, renderOperationsTable()));
  console.log(`wrote the table of operations in ${operationsDocPath}`);
}
