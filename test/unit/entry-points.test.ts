// The public surface is designed, not accumulated: every name belongs to one entry point, and
// none of them exports the library's internals (patch ids, the builders the workflow and the
// activities share, test vocabulary outside durable-agents/testing). The names are read with
// the TypeScript compiler from the entry points package.json exports (scripts/entry-exports.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiReportCommand, apiReportDir, apiReports } from '../../scripts/api-report';
import { entryExports, type ExportedName } from '../../scripts/entry-exports';

/** Internals that once leaked through an entry point: each has a reason to stay inside. */
const internalNames = [
  // the contracts' builders and helpers, shared by the workflow and the activities
  'lazySchema', 'continuationInput', 'resolveToolActivityInput', 'toolCallFromActivity', 'turnOfToolCallSummary', 'turnActivityIdPrefix',
  'toolIdempotencyKey', 'describeIssues', 'isPlainJson', 'jsonByteLength', 'payloadTooLarge', 'maxPayloadBytes', 'warnPayloadBytes',
  // activity names and internal signals: the worker registers them, nobody calls them by name
  'mcpListToolsActivityName', 'mcpCallToolActivityName', 'earlyToolCallSignal', 'reservedActivityNames',
  // versions of durable state: the library's to bump
  'carriedRunStateVersion', 'sessionSchemaVersion', 'carriedRunStateSchema',
];

let exportsByEntry: Map<string, ExportedName[]>;
beforeAll(() => {
  exportsByEntry = entryExports();
}, 60000);

describe('entry points', () => {
  it('export every name from one entry point only', () => {
    const homes = new Map<string, string[]>();
    for (const [entry, names] of exportsByEntry) for (const { name } of names) homes.set(name, [...(homes.get(name) ?? []), entry]);
    const twice = [...homes].filter(([, entries]) => entries.length > 1).map(([name, entries]) => `${name} (${entries.join(', ')})`);
    expect(twice).toEqual([]);
  });

  it('export no internal name', () => {
    const leaked = [...exportsByEntry].flatMap(([entry, names]) => names.filter((exported) => internalNames.includes(exported.name)).map((exported) => `${entry}: ${exported.name}`));
    expect(leaked).toEqual([]);
  });

  it('export no patch id', () => {
    const patches = [...exportsByEntry].flatMap(([entry, names]) => names.filter((exported) => exported.declaredIn === 'workflows/versioning/patches.ts').map((exported) => `${entry}: ${exported.name}`));
    expect(patches).toEqual([]);
  });

  it('keep test vocabulary in durable-agents/testing', () => {
    const elsewhere = [...exportsByEntry]
      .filter(([entry]) => entry !== 'testing')
      .flatMap(([entry, names]) => names.filter((exported) => /^(testing|test)\//.test(exported.declaredIn)).map((exported) => `${entry}: ${exported.name}`));
    expect(elsewhere).toEqual([]);
  });

  it('keep durable-agents/protocol to the wire: workflow types, definitions and the table of operations, search attributes and schemas', () => {
    const protocol = exportsByEntry.get('protocol') ?? [];
    expect(protocol.length).toBeGreaterThan(0);
    expect(protocol.filter((exported) => !/(WorkflowType|Query|Signal|Update|SearchAttribute|Schema)$|^(runOperationMessages|RunOperationName)$/.test(exported.name)).map((exported) => exported.name)).toEqual([]);
  });

  // The committed reports are what reviewers read: a change to the public surface must show in them.
  it(`match the committed API reports in api/ (update them with \`${apiReportCommand}\` and review the diff)`, () => {
    const reports = apiReports(exportsByEntry);
    const committed = existsSync(apiReportDir) ? readdirSync(apiReportDir).filter((file) => file.endsWith('.api.md')) : [];
    const stale = [
      ...[...reports].filter(([file, text]) => !committed.includes(file) || readFileSync(join(apiReportDir, file), 'utf8') !== text).map(([file]) => `api/${file}`),
      ...committed.filter((file) => !reports.has(file)).map((file) => `api/${file} (no such entry point)`),
    ];
    if (stale.length > 0) throw new Error(`the API report is stale: ${stale.join(', ')}. Run \`${apiReportCommand}\`, review the diff of api/ and commit it with the change.`);
  });
});

describe('layers', () => {
  // The worker and the client sit side by side: what both need (reading and cutting histories,
  // contracts, connection settings) lives in folders under both.
  // The client side does not reach into the worker either: connection, encryption and tracing
  // settings live in config/, which both use.
  it.each([
    ['worker', 'client'],
    ['client', 'worker'],
    ['history', 'worker'],
    ['history', 'client'],
    ['config', 'worker'],
    ['config', 'client'],
  ])('%s/ imports nothing from %s/', (from, to) => {
    const folder = join(__dirname, '../..', from);
    const crossing = readdirSync(folder)
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => new RegExp(`from '\\.\\./${to}/`).test(readFileSync(join(folder, file), 'utf8')))
      .map((file) => `${from}/${file}`);
    expect(crossing).toEqual([]);
  });
});
