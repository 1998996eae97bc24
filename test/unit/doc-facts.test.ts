// What the guides state about the code, checked against the code: a number or a fact a reader
// acts on (how many attempts before a run waits) must change with the code it describes.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { join, resolve } from 'node:path';
import { defaultModelActivityOptions } from '../../workflows/planners/llm/config';
import { listRetry } from '../../workflows/run/toolset-sync';
import { toolActivityType } from '../../contracts/tool-activity-type';

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
