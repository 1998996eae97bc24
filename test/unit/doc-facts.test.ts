// What the guides state about the code, checked against the code: a number or a fact a reader
// acts on (how many attempts before a run waits) must change with the code it describes.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { defaultModelActivityOptions } from '../../workflows/planners/llm/config';
import { listRetry } from '../../workflows/run/toolset-sync';
import { toolActivityType } from '../../contracts/tool-activity-type';
import { maxRememberedMessageIds } from '../../workflows/sessions/message-ids';
import { defaultWebhookToleranceSeconds } from '../../server/webhooks';

const repo = resolve(__dirname, '../..');
const guide = (name: string): string => readFileSync(join(repo, 'docs', name), 'utf8').replace(/\s+/g, ' ');

describe('facts the guides state', () => {
  it('agents-and-tools.md: a model call waits for its provider after the attempts of defaultModelActivityOptions', () => {
    const stated = /\*\*Outages\*\*: after (\d+) failed attempts/.exec(guide('agents-and-tools.md'));
    expect(Number(stated?.[1])).toBe(defaultModelActivityOptions.maximumAttempts);
  });

  it('mcp.md: a listing waits for its server after the attempts of its retry policy', () => {
    const stated = /waits for it after (\d+) attempts/.exec(guide('mcp.md'));
    expect(Number(stated?.[1])).toBe(listRetry.maximumAttempts);
  });

  it('human-in-the-loop.md: a session remembers the ids of its last maxRememberedMessageIds messages; webhooks take timestamps within the default tolerance', () => {
    const text = guide('human-in-the-loop.md');
    const remembered = /remembers the ids of its last \*\*([\d,]+)\*\* messages/.exec(text);
    expect(Number(remembered?.[1]?.replace(/,/g, ''))).toBe(maxRememberedMessageIds);
    expect(Number(/a timestamp more than (\d+) s from the server's clock/.exec(text)?.[1])).toBe(defaultWebhookToleranceSeconds);
  });

  it("sub-agents-and-call-graphs.md: the dashboard's tree view, which the run page shows (test/integration/dashboard.test.ts opens it), is not denied", () => {
    expect(readFileSync(join(repo, 'dashboard', 'views', 'run-page.tsx'), 'utf8')).toMatch(/<RunTreePanel /);
    const text = guide('sub-agents-and-call-graphs.md');
    expect(text).toContain("a run's page shows the whole tree of its sub-agent runs");
    expect(/[^.]*no tree view[^.]*/.exec(text)?.[0]).toBeUndefined();
  });

  it("ToolDefinition.name's TSDoc names the activity type calls run as, `<agent>/<tool>` (toolActivityType), not the tool's name", () => {
    const file = join(repo, 'contracts', 'tool-definition.ts');
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const definition = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'ToolDefinition');
    const name = definition?.members.find((m) => m.name !== undefined && ts.isIdentifier(m.name) && m.name.text === 'name');
    const doc = name ? ts.getJSDocCommentsAndTags(name).map((d) => d.getText()).join('\n').replace(/\s*\*\s*/g, ' ') : '';
    expect(toolActivityType('<agent>', '<tool>')).toBe('<agent>/<tool>');
    expect(doc).toContain('`<agent>/<tool>`');
    expect(doc).not.toMatch(/also the Temporal activity type/);
  });
});

interface PackageJson {
  readonly version: string;
  readonly engines?: { readonly node?: string };
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

const packageJson = (dir: string): PackageJson => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;

/** A dependency's package.json, as installed. */
const installed = (name: string): PackageJson => packageJson(join(repo, 'node_modules', name));

/** The lowest version a range of the forms `>=20.3.0`, `>= 20`, `^22.1` admits, as [major, minor, patch]; undefined for none or another form. */
function lowestVersion(range: string | undefined): number[] | undefined {
  const match = /^\s*(?:>=|\^)?\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(range ?? '');
  return match ? [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)] : undefined;
}

const compareVersions = (a: readonly number[], b: readonly number[]): number => a.map((n, i) => n - (b[i] ?? 0)).find((d) => d !== 0) ?? 0;
const versionText = (v: readonly number[] | undefined): string => (v ? v.join('.') : 'none');

describe('the Node and ai versions package.json and the guides state', () => {
  const pkg = packageJson(repo);

  it("package.json's engines admit no Node older than a runtime or peer dependency declares it needs", () => {
    const own = lowestVersion(pkg.engines?.node);
    expect(own).toBeDefined();
    const needs = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })
      .map((name) => ({ name, node: lowestVersion(installed(name).engines?.node) }))
      .filter((d) => d.node !== undefined && compareVersions(d.node, own ?? []) > 0)
      .map((d) => `${d.name} needs Node ${versionText(d.node)}`);
    expect({ engines: versionText(own), needs }).toEqual({ engines: versionText(own), needs: [] });
  });

  it('README.md and CONTRIBUTING.md state the Node minimum of package.json', () => {
    const [major, minor] = lowestVersion(pkg.engines?.node) ?? [];
    for (const file of ['README.md', 'CONTRIBUTING.md']) {
      const stated = /Node [\d.]+ or later/.exec(readFileSync(join(repo, file), 'utf8'))?.[0];
      expect(`${file}: ${stated}`).toBe(`${file}: Node ${major}.${minor} or later`);
    }
  });

  it("streaming-to-uis.md states the ai version its AI SDK routes need, and the Node version that ai declares, as the installed ai does", () => {
    const text = guide('streaming-to-uis.md');
    const statedAi = /read them with `ai` (\d+\.\d+\.\d+) or later/.exec(text)?.[1];
    const statedNode = /declare Node (\d+) or later/.exec(text)?.[1];
    const ai = installed('ai');
    // The library does not use ai: only the clients of these routes need it (and its Node).
    expect({ dependency: pkg.dependencies?.['ai'], peer: pkg.peerDependencies?.['ai'] }).toEqual({ dependency: undefined, peer: undefined });
    // The suite's readers (test/support/ai-sdk-*-process.mjs) use the installed ai: the stated minimum is of its major.
    expect({ ai: statedAi?.split('.')[0], installedAtLeast: compareVersions(lowestVersion(ai.version) ?? [], lowestVersion(statedAi) ?? [99]) >= 0 }).toEqual({ ai: ai.version.split('.')[0], installedAtLeast: true });
    // ai and its @ai-sdk/* packages each declare the Node major the guide states.
    const declared = ['ai', ...Object.keys(ai.dependencies ?? {})].map((name) => `${name}: Node ${lowestVersion(installed(name).engines?.node)?.[0]}`);
    expect(declared).toEqual(['ai', ...Object.keys(ai.dependencies ?? {})].map((name) => `${name}: Node ${statedNode}`));
  });
});

