/**
 * `npm run check`: what `npm run typecheck` and `npm run lint` check, in one process that builds
 * each TypeScript program once. The lint's type-aware rules (no-floating-promises,
 * no-misused-promises) need the types of the whole tree; run apart, ESLint builds the programs
 * again and the checker infers every type a second time (on two cores, about half a minute of CPU
 * that the tests beside it want). Here the type check runs first and ESLint lints with the same
 * programs (typescript-eslint's `programs` option), so the rules read types the checker has already
 * inferred. Same tsconfig files, same ESLint config, same findings; the exit code is 1 when either
 * reports an error.
 */
import { dirname, resolve } from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';

const repoRoot = resolve(__dirname, '..');
/** The projects `npm run typecheck` checks with `tsc --noEmit -p`. */
const projects = ['tsconfig.json', 'dashboard/tsconfig.json'];

const formatHost: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (fileName) => fileName,
  getCurrentDirectory: () => process.cwd(),
  getNewLine: () => '\n',
};

/** The program `tsc --noEmit -p <project>` builds, and what tsc would report for it. */
function typecheck(project: string): { program: ts.Program; diagnostics: readonly ts.Diagnostic[] } {
  const configPath = resolve(repoRoot, project);
  const read = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (read.error) return { program: ts.createProgram([], {}), diagnostics: [read.error] };
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configPath), { noEmit: true }, configPath);
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    // --noEmit as tsc is run: the checker skips its emit-only checks then (e.g. collisions with the
    // `exports` of generated CommonJS).
    options: { ...parsed.options, noEmit: true },
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: parsed.errors,
  });
  return { program, diagnostics: ts.getPreEmitDiagnostics(program) };
}

async function main(): Promise<void> {
  let failed = false;
  const started = Date.now();
  const checked = projects.map(typecheck);
  const diagnostics = checked.flatMap((c) => c.diagnostics);
  if (diagnostics.length) {
    failed = diagnostics.some((d) => d.category === ts.DiagnosticCategory.Error);
    const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
    process.stdout.write(format(diagnostics, formatHost));
  }
  console.log(`typecheck (${projects.join(', ')}): ${diagnostics.length} diagnostics, ${Math.round((Date.now() - started) / 1000)} s`);

  const linting = Date.now();
  const eslint = new ESLint({
    cwd: repoRoot,
    overrideConfig: {
      files: ['**/*.ts', '**/*.tsx'],
      languageOptions: { parserOptions: { projectService: false, programs: checked.map((c) => c.program) } },
    },
  });
  const results = await eslint.lintFiles(['.']);
  const formatter = await eslint.loadFormatter('stylish');
  const report = await formatter.format(results);
  if (report) console.log(report);
  const errors = results.reduce((n, r) => n + r.errorCount, 0);
  failed ||= errors > 0;
  console.log(`lint (${results.length} files): ${errors} errors, ${Math.round((Date.now() - linting) / 1000)} s`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
