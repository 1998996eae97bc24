// Code in the docs compiles: every TSDoc `@example` of the library's sources, every ```ts block of
// README.md and docs/**/*.md, and the files of the README's "Build your own agent" section are
// type-checked in one TypeScript program against the sources (the repository's `durable-agents/*`
// paths).
//
// How an example becomes a module:
// - a Markdown block is compiled as written: it imports what it uses (`durable-agents/*`, zod,
//   openai, node:*) itself, so that a reader who copies it gets a module that compiles;
// - a TSDoc `@example` sits in the source it documents and is read in the editor next to it: the
//   names it uses that the public entry points export (tsconfig's `durable-agents/*` paths:
//   `/workflow`, `/worker`, `/client`, `/testing`, `/server`, … in that order) or that its own
//   source file exports are imported for it; everything else it imports itself;
// - what it takes from the code around it, it declares in its first lines (`declare const
//   workflowId: string;`): the docs show those lines too. Placeholders are `// …` comments,
//   never `...`;
// - it sits next to the README's `src/agent.ts` and `src/workflows.ts`, so `import { notesAgent }
//   from './agent'` and `require.resolve('./workflows')` mean what they mean in the README;
// - top-level `await` is allowed (the module is an ES module);
// - a Markdown block that is a fragment, not a module (an object literal, a planner's `return`),
//   is fenced ```ts fragment and skipped. Keep that rare.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { readmeProject, readmeSection } from '../package/readme-project';

const repo = resolve(__dirname, '../..');
const sourceFolders = ['workflows', 'worker', 'client', 'protocol', 'testing', 'server', 'activities', 'contracts', 'config', 'history', 'cli'];
const docFolders = ['docs'];
/**
 * Markdown files whose blocks are not checked yet, each with why. docs/rolling-out.md: its worker
 * block uses `agents` and `tools` without declaring them; declare them (or fence it `ts fragment`)
 * and drop it from here.
 */
const notCheckedYet: ReadonlySet<string> = new Set([]);
const virtualRoot = join(repo, '.doc-examples');

interface DocExample {
  /** `<file>:<line>` of the `@example` tag or of the Markdown block's fence. */
  readonly where: string;
  /**
   * The source file of a TSDoc `@example`, whose exports and the entry points' it may use
   * unimported; none for a Markdown block, which imports everything it uses itself.
   */
  readonly sourceFile?: string;
  readonly code: string;
}

/** The public entry points, from tsconfig's `durable-agents/*` paths, in their order there. */
function publicEntryPoints(options: ts.CompilerOptions): string[] {
  return Object.keys(options.paths ?? {}).filter((name) => name.startsWith('durable-agents/'));
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/**
 * The ```ts (or ```typescript) blocks of a Markdown file, but those fenced `ts fragment` and
 * those in the lines `skip` covers (the README's "Build your own agent" project, checked whole).
 */
function markdownExamples(file: string, text: string, skip?: { readonly from: number; readonly to: number }): DocExample[] {
  const lines = text.split('\n');
  const examples: DocExample[] = [];
  for (let index = 0; index < lines.length; index++) {
    const fence = /^```(ts|typescript)(?:\s+(\S+))?\s*$/.exec(lines[index] ?? '');
    if (!fence) continue;
    const end = lines.findIndex((line, i) => i > index && /^```\s*$/.test(line));
    if (end < 0) throw new Error(`${relative(repo, file)}:${index + 1}: a code block that never ends`);
    const inSkipped = skip !== undefined && index >= skip.from && index < skip.to;
    if (fence[2] !== 'fragment' && !inSkipped) {
      examples.push({ where: `${relative(repo, file)}:${index + 1}`, code: lines.slice(index + 1, end).join('\n') });
    }
    index = end;
  }
  return examples;
}

/** The lines (0-based, end exclusive) of the README's "Build your own agent" section. */
function readmeProjectLines(markdown: string): { from: number; to: number } {
  const section = readmeSection(markdown);
  const from = markdown.slice(0, markdown.indexOf(section)).split('\n').length - 1;
  return { from, to: from + section.split('\n').length };
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : tsFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The `@example` blocks of a file's doc comments, each up to the next tag or the comment's end. */
function docExamples(file: string, text: string): DocExample[] {
  const lines = text.split('\n');
  const examples: DocExample[] = [];
  lines.forEach((line, index) => {
    const tag = /^\s*\* @example ?(.*)$/.exec(line);
    if (!tag) return;
    const code = tag[1]?.trim() ? [tag[1]] : [];
    for (const next of lines.slice(index + 1)) {
      if (/^\s*\*\//.test(next) || /^\s*\* @\w/.test(next)) break;
      code.push(next.replace(/^\s*\* ?/, ''));
    }
    examples.push({ where: `${relative(repo, file)}:${index + 1}`, sourceFile: file, code: code.join('\n') });
  });
  return examples;
}

/** Names an example declares or imports itself at its top level. */
function ownNames(code: string): Set<string> {
  const names = new Set<string>();
  const addBinding = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) addBinding(element.name);
  };
  for (const statement of ts.createSourceFile('example.ts', code, ts.ScriptTarget.ES2022).statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.add(element.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) addBinding(declaration.name);
    } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) && statement.name) {
      names.add(statement.name.text);
    }
  }
  return names;
}

function compilerOptions(): ts.CompilerOptions {
  const configFile = ts.readConfigFile(join(repo, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, repo);
  return { ...options, noEmit: true, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, sourceMap: false, incremental: false };
}

function createHost(options: ts.CompilerOptions, virtualFiles: Map<string, string>): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const cache = new Map<string, ts.SourceFile | undefined>();
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError) => {
    const virtual = virtualFiles.get(fileName);
    if (virtual !== undefined) return ts.createSourceFile(fileName, virtual, languageVersion, true);
    if (!cache.has(fileName)) cache.set(fileName, getSourceFile(fileName, languageVersion, onError));
    return cache.get(fileName);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => virtualFiles.has(fileName) || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => virtualFiles.get(fileName) ?? readFile(fileName);
  host.directoryExists = (dir) => dir.startsWith(virtualRoot) || ts.sys.directoryExists(dir);
  return host;
}

/** Which module each exported name is imported from: the entry points first, then the example's own file. */
function exportedNames(program: ts.Program, probe: string, modules: readonly string[]): Map<string, Map<string, string>> {
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(probe);
  if (!file) throw new Error('the probe module is missing');
  const byModule = new Map<string, Map<string, string>>();
  file.statements.forEach((statement, index) => {
    const module = modules[index];
    if (!module || !ts.isImportDeclaration(statement)) return;
    const symbol = checker.getSymbolAtLocation(statement.moduleSpecifier);
    const names = new Map<string, string>();
    for (const exported of symbol ? checker.getExportsOfModule(symbol) : []) names.set(exported.name, module);
    byModule.set(module, names);
  });
  return byModule;
}

interface Checked {
  /** Problems per example location (or README file), with the line inside the example. */
  readonly problems: Record<string, string[]>;
  readonly examples: readonly DocExample[];
}

/** Type-checks the examples and the README's files in one program. */
function checkDocExamples(examples: readonly DocExample[], readmeFiles: Readonly<Record<string, string>>): Checked {
  const options = compilerOptions();
  const entryPoints = publicEntryPoints(options);
  const virtualFiles = new Map<string, string>();
  for (const [path, content] of Object.entries(readmeFiles)) virtualFiles.set(join(virtualRoot, path), content);
  const ownModules = [...new Set(examples.flatMap((e) => (e.sourceFile ? [e.sourceFile.replace(/\.ts$/, '')] : [])))];
  const modules = [...entryPoints, ...ownModules];
  const probe = join(virtualRoot, 'src', 'exports-probe.ts');
  virtualFiles.set(probe, modules.map((module, i) => `import * as m${i} from '${module}';`).join('\n'));
  const host = createHost(options, virtualFiles);
  const exportsOf = exportedNames(ts.createProgram([probe], options, host), probe, modules);

  const files = examples.map((example, index) => {
    const file = join(virtualRoot, 'src', `example-${index}.ts`);
    const own = ownNames(example.code);
    const used = new Set(example.code.match(/[A-Za-z_$][\w$]*/g) ?? []);
    const imported = new Set<string>();
    const imports: string[] = [];
    const importedFrom = example.sourceFile ? [...entryPoints, example.sourceFile.replace(/\.ts$/, '')] : [];
    for (const module of importedFrom) {
      const names = [...(exportsOf.get(module)?.keys() ?? [])].filter((name) => used.has(name) && !own.has(name) && !imported.has(name));
      names.forEach((name) => imported.add(name));
      if (names.length > 0) imports.push(`import { ${names.join(', ')} } from '${module}';`);
    }
    // One line of imports keeps the example's own line numbers one below the file's.
    virtualFiles.set(file, `${imports.join(' ')}\n${example.code}\nexport {};\n`);
    return { file, where: example.where, offset: 1 };
  });
  const readmePaths = Object.keys(readmeFiles).map((path) => ({ file: join(virtualRoot, path), where: `README.md "Build your own agent" ${path}`, offset: 0 }));
  const program = ts.createProgram([...files, ...readmePaths].map((f) => f.file), options, host);

  const problems: Record<string, string[]> = {};
  for (const { file, where, offset } of [...files, ...readmePaths]) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${where}: not in the program`);
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    if (diagnostics.length === 0) continue;
    problems[where] = diagnostics.map((d) => {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line + 1 - offset;
      return `line ${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
  }
  return { problems, examples };
}

describe('code in the docs', () => {
  const canary: DocExample = { where: 'canary.ts:1', sourceFile: join(repo, 'workflows', 'index.ts'), code: "defineTool({ name: 'x' });" };
  const markdownCanary = [
    '# A guide',
    '',
    '```ts',
    "import { defineTool } from 'durable-agents/workflow';",
    'defineTool({ name: 1 });',
    '```',
    '',
    '```ts',
    "defineTool({ name: 'x' });",
    '```',
    '',
    '```ts fragment',
    '{ not: a module',
    '```',
    '',
  ].join('\n');
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  let checked: Checked;
  beforeAll(() => {
    const examples = sourceFolders.flatMap((folder) => tsFiles(join(repo, folder))).flatMap((file) => docExamples(file, readFileSync(file, 'utf8')));
    const markdown = [
      ...markdownExamples(join(repo, 'README.md'), readme, readmeProjectLines(readme)),
      ...docFolders
        .flatMap((folder) => markdownFiles(join(repo, folder)))
        .filter((file) => !notCheckedYet.has(relative(repo, file)))
        .flatMap((file) => markdownExamples(file, readFileSync(file, 'utf8'))),
      ...markdownExamples(join(repo, 'markdown-canary.md'), markdownCanary),
    ];
    checked = checkDocExamples([...examples, ...markdown, canary], readmeProject(readme).files);
  }, 120_000);

  const isCanary = (where: string): boolean => where === 'canary.ts:1' || where.startsWith('markdown-canary.md:');

  it('finds the examples of the public entry points', () => {
    const where = checked.examples.map((e) => e.where);
    for (const entry of ['workflows/index.ts', 'worker/index.ts', 'client/index.ts', 'protocol/index.ts', 'testing/index.ts', 'server/index.ts']) {
      expect(where.some((w) => w.startsWith(`${entry}:`))).toBe(true);
    }
  });

  it('reports an example that does not compile with its file and line', () => {
    expect(checked.problems['canary.ts:1']).toEqual([expect.stringMatching(/^line 1: Argument of type/)]);
  });

  it('reports a Markdown block that does not compile with its file and fence line, and skips fragments', () => {
    expect(checked.examples.filter((e) => e.where.startsWith('markdown-canary.md:')).map((e) => e.where)).toEqual(['markdown-canary.md:3', 'markdown-canary.md:8']);
    expect(checked.problems['markdown-canary.md:3']).toEqual([expect.stringMatching(/^line 2: Type 'number' is not assignable/)]);
  });

  it('compiles a Markdown block as written: a name it uses without importing it is an error, as for a reader who copies it', () => {
    expect(checked.problems['markdown-canary.md:8']).toEqual([expect.stringMatching(/^line 1: Cannot find name 'defineTool'/)]);
  });

  it('every @example compiles', () => {
    const broken = Object.entries(checked.problems).filter(([where]) => !isCanary(where) && !where.includes('.md'));
    expect(Object.fromEntries(broken)).toEqual({});
  });

  it('every ```ts block of README.md and docs/ compiles', () => {
    const blocks = checked.examples.filter((e) => /\.md:\d+$/.test(e.where) && !isCanary(e.where));
    expect(blocks.some((e) => e.where.startsWith('docs/'))).toBe(true);
    const broken = Object.entries(checked.problems).filter(([where]) => /\.md:\d+$/.test(where) && !isCanary(where));
    expect(Object.fromEntries(broken)).toEqual({});
  });

  it("the README's \"Build your own agent\" files compile", () => {
    const files = readmeProject(readme).files;
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['src/agent.ts', 'src/workflows.ts', 'src/worker.ts', 'src/client.ts', 'test/replay.test.ts']));
    expect(Object.fromEntries(Object.entries(checked.problems).filter(([where]) => where.startsWith('README.md "')))).toEqual({});
  });
});
