/**
 * `npm run build`'s ES-module copy of the workflow code (`dist/esm/`: contracts and workflows,
 * what workflow bundles take, see worker/workflow-sources.ts). Each file is transpiled on its own
 * with the options of tsconfig.build.esm.json: the CommonJS build before it has type-checked the
 * same sources, and `isolatedModules` (tsconfig.json) guarantees that a file transpiles alone to
 * what the whole program emits. The output, source maps included, is tsc's.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(__dirname, '..');
const configFile = join(root, 'tsconfig.build.esm.json');
const config = ts.getParsedCommandLineOfConfigFile(configFile, {}, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  },
});
if (!config) throw new Error(`cannot read ${configFile}`);
if (config.errors.length) throw new Error(ts.formatDiagnostics(config.errors, ts.createCompilerHost(config.options)));
const outDir = config.options.outDir;
const rootDir = config.options.rootDir;
if (!outDir || !rootDir) throw new Error(`${configFile} needs outDir and rootDir`);

for (const file of config.fileNames) {
  const out = join(outDir, relative(rootDir, file)).replace(/\.ts$/, '.js');
  const { outputText, sourceMapText, diagnostics } = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: config.options,
    fileName: file,
    reportDiagnostics: true,
  });
  if (diagnostics?.length) throw new Error(ts.formatDiagnostics(diagnostics, ts.createCompilerHost(config.options)));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, outputText);
  if (sourceMapText) {
    // transpileModule knows no output folder: point the map at the source as tsc does.
    const map = JSON.parse(sourceMapText) as { sources: string[] };
    map.sources = [relative(dirname(out), file)];
    writeFileSync(`${out}.map`, JSON.stringify(map));
  }
}
console.log(`esm: ${config.fileNames.length} files to ${relative(root, outDir)}`);
