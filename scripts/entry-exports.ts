/**
 * The public surface, read with the TypeScript compiler: every name each entry point of
 * package.json's `exports` exports, with its kind and signature. Used by `npm run api:report`
 * (api/<entry>.api.md), scripts/count-exports.ts and the unit test that checks the report.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const repoRoot = resolve(__dirname, '..');

/** One entry point: its name as users import it and its source module in this repository. */
export interface EntryPoint {
  /** `client` for `durable-agents/client`. */
  readonly name: string;
  readonly source: string;
}

/** One exported name of an entry point. */
export interface ExportedName {
  readonly name: string;
  /** `function`, `class`, `const`, `interface`, `type`, … (the declaration's kind). */
  readonly kind: string;
  /** The declaration as a user sees it, one or more lines, without comments or bodies. */
  readonly signature: string;
  /** The file that declares it, relative to the repository (`contracts/run.ts`). */
  readonly declaredIn: string;
}

/** The entry points package.json exports (`./package.json` aside), with their source modules. */
export function entryPoints(root = repoRoot): EntryPoint[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | { types: string }> };
  return Object.entries(pkg.exports)
    .filter((entry): entry is [string, { types: string }] => typeof entry[1] === 'object')
    .map(([key, target]) => ({ name: key.replace(/^\.\//, ''), source: join(root, target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')) }));
}

const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

function declarationKind(declaration: ts.Declaration): string {
  if (ts.isFunctionDeclaration(declaration)) return 'function';
  if (ts.isClassDeclaration(declaration)) return 'class';
  if (ts.isInterfaceDeclaration(declaration)) return 'interface';
  if (ts.isTypeAliasDeclaration(declaration)) return 'type';
  if (ts.isEnumDeclaration(declaration)) return 'enum';
  if (ts.isVariableDeclaration(declaration)) return ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.Const ? 'const' : 'let';
  if (ts.isModuleDeclaration(declaration)) return 'namespace';
  return ts.SyntaxKind[declaration.kind];
}

/** A class without bodies and private members: what a user can call. */
function classSignature(declaration: ts.ClassDeclaration, name: string): string {
  const members = declaration.members.filter((member) => {
    const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
    if (modifiers.some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword || modifier.kind === ts.SyntaxKind.ProtectedKeyword)) return false;
    return !(member.name && ts.isPrivateIdentifier(member.name)) && !ts.isClassStaticBlockDeclaration(member);
  });
  const stripped = members.map((member) => {
    if (ts.isMethodDeclaration(member)) return ts.factory.updateMethodDeclaration(member, member.modifiers, member.asteriskToken, member.name, member.questionToken, member.typeParameters, member.parameters, member.type, undefined);
    if (ts.isConstructorDeclaration(member)) return ts.factory.updateConstructorDeclaration(member, member.modifiers, member.parameters, undefined);
    if (ts.isGetAccessorDeclaration(member)) return ts.factory.updateGetAccessorDeclaration(member, member.modifiers, member.name, member.parameters, member.type, undefined);
    if (ts.isPropertyDeclaration(member)) return ts.factory.updatePropertyDeclaration(member, member.modifiers, member.name, member.questionToken ?? member.exclamationToken, member.type, undefined);
    return member;
  });
  const heritage = declaration.heritageClauses?.map((clause) => printer.printNode(ts.EmitHint.Unspecified, clause, declaration.getSourceFile()).trim()).join(' ');
  const body = stripped.map((member) => `  ${printer.printNode(ts.EmitHint.Unspecified, member, declaration.getSourceFile()).replace(/\n\s*/g, ' ')}`);
  return [`class ${name}${heritage ? ` ${heritage}` : ''} {`, ...body, '}'].join('\n');
}

function signatureOf(checker: ts.TypeChecker, symbol: ts.Symbol, declaration: ts.Declaration, name: string, kind: string): string {
  const source = declaration.getSourceFile();
  if (ts.isFunctionDeclaration(declaration)) {
    const declarations = (symbol.declarations ?? []).filter(ts.isFunctionDeclaration);
    const overloads = declarations.length > 1 ? declarations.filter((candidate) => !candidate.body) : declarations;
    return overloads
      .map((overload) => printer.printNode(ts.EmitHint.Unspecified, ts.factory.updateFunctionDeclaration(overload, undefined, overload.asteriskToken, ts.factory.createIdentifier(name), overload.typeParameters, overload.parameters, overload.type ?? checker.typeToTypeNode(checker.getSignatureFromDeclaration(overload)!.getReturnType(), overload, ts.NodeBuilderFlags.NoTruncation), undefined), source).replace(/\n\s*/g, ' '))
      .map((text) => `${text.replace(/;$/, '')};`)
      .join('\n');
  }
  if (ts.isClassDeclaration(declaration)) return classSignature(declaration, name);
  if (ts.isInterfaceDeclaration(declaration) || ts.isTypeAliasDeclaration(declaration) || ts.isEnumDeclaration(declaration)) {
    const modifiers = ts.getModifiers(declaration)?.filter((modifier) => modifier.kind !== ts.SyntaxKind.ExportKeyword && modifier.kind !== ts.SyntaxKind.DefaultKeyword);
    const renamed = ts.isInterfaceDeclaration(declaration)
      ? ts.factory.updateInterfaceDeclaration(declaration, modifiers, ts.factory.createIdentifier(name), declaration.typeParameters, declaration.heritageClauses, declaration.members)
      : ts.isTypeAliasDeclaration(declaration)
        ? ts.factory.updateTypeAliasDeclaration(declaration, modifiers, ts.factory.createIdentifier(name), declaration.typeParameters, declaration.type)
        : ts.factory.updateEnumDeclaration(declaration, modifiers, ts.factory.createIdentifier(name), declaration.members);
    return printer.printNode(ts.EmitHint.Unspecified, renamed, source);
  }
  if (ts.isVariableDeclaration(declaration)) {
    const annotation = declaration.type
      ? printer.printNode(ts.EmitHint.Unspecified, declaration.type, source)
      : checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, declaration), declaration);
    return `${kind} ${name}: ${annotation};`;
  }
  return `${kind} ${name}`;
}

/** The exported names of every entry point, sorted, read from one TypeScript program. */
export function entryExports(root = repoRoot): Map<string, ExportedName[]> {
  const entries = entryPoints(root);
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('tsconfig.json could not be read');
  const program = ts.createProgram(entries.map((entry) => entry.source), { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const result = new Map<string, ExportedName[]>();
  for (const entry of entries) {
    const file = program.getSourceFile(entry.source);
    const moduleSymbol = file && checker.getSymbolAtLocation(file);
    if (!moduleSymbol) throw new Error(`${entry.source} is not a module`);
    const names = checker.getExportsOfModule(moduleSymbol).map((exported): ExportedName => {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declaration = symbol.declarations?.[0];
      if (!declaration) return { name: exported.name, kind: 'unknown', signature: exported.name, declaredIn: '' };
      const kind = declarationKind(declaration);
      const signature = signatureOf(checker, symbol, declaration, exported.name, kind)
        .split(root + '/').join('')
        .split(dirname(root) + '/').join('');
      return { name: exported.name, kind, signature, declaredIn: relative(root, declaration.getSourceFile().fileName) };
    });
    result.set(entry.name, names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
  }
  return result;
}
