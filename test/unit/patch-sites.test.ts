// Where the workflow code branches on a run's release: each patch is asked at one place (shared by
// every kind of run and call that takes it), and the work riding on baselines is decided once, by
// baselineWork, into plain values of the run. docs/internals/patches.md lists the places.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import * as patches from '../../workflows/versioning/patches';

const repo = resolve(__dirname, '../..');
const versioningFile = 'workflows/versioning/patches.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [relative(repo, path)] : [];
  });
}

/** The patch ids by the names of their constants in patches.ts. */
const idsByName = new Map(Object.entries(patches).flatMap(([name, value]): [string, string][] => (typeof value === 'string' ? [[name, value]] : [])));

/** Every call of `isPatched`, `isInBaseline` or `patched` in workflows/ outside patches.ts: its file, the function and the patch id. */
function versionQuestions(): { file: string; fn: string; id: string }[] {
  return sources(join(repo, 'workflows'))
    .filter((file) => file !== versioningFile)
    .flatMap((file) => {
      const source = ts.createSourceFile(file, readFileSync(join(repo, file), 'utf8'), ts.ScriptTarget.ES2022, true);
      const found: { file: string; fn: string; id: string }[] = [];
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && ['isPatched', 'isInBaseline', 'patched'].includes(node.expression.text)) {
          const arg = node.arguments[0];
          const id = arg && ts.isIdentifier(arg) ? (idsByName.get(arg.text) ?? arg.text) : (arg?.getText(source) ?? '');
          found.push({ file, fn: node.expression.text, id });
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
      return found;
    });
}

/** The rows of the table "Where each patch is asked" in docs/internals/patches.md: patch id and file. */
function documentedPlaces(): Map<string, string> {
  const text = readFileSync(join(repo, 'docs/internals/patches.md'), 'utf8');
  const section = text.slice(text.indexOf('## Where each patch is asked'));
  const rows = [...section.matchAll(/^\| `([a-z0-9.-]+)` \| `(workflows\/[^`]+)`/gm)];
  return new Map(rows.map((m) => [m[1] ?? '', m[2] ?? '']));
}

describe('where the workflow code branches on a run\'s release', () => {
  const questions = versionQuestions();

  it('only through isPatched: no patched() outside patches.ts, and work riding on a baseline is read from the run context', () => {
    expect(questions.filter((q) => q.fn !== 'isPatched')).toEqual([]);
  });

  it('each patch at one place, at most nine places in all', () => {
    const places = new Map<string, string[]>();
    for (const q of questions) places.set(q.id, [...(places.get(q.id) ?? []), q.file]);
    expect([...places].filter(([, files]) => files.length > 1)).toEqual([]);
    expect(questions.length).toBeLessThanOrEqual(8);
  });

  it('docs/internals/patches.md names the place of every patch of the window', () => {
    const documented = documentedPlaces();
    const ids = patches.releases.flatMap((r) => r.patches);
    expect([...documented.keys()].sort()).toEqual([...ids].sort());
    const asked = new Map(questions.map((q) => [q.id, q.file]));
    for (const id of ids) expect({ id, file: documented.get(id) }).toEqual({ id, file: asked.get(id) ?? versioningFile });
  });
});

describe('baselineWork: what a run does of the work riding on baselines', () => {
  it('a run of 1.0.0 leaves its first task unmarked, logs model usage, passes its confirmation down and gives its tenant to the runs it starts', () => {
    const baseline = new Set(patches.releases.flatMap((r) => r.patches));
    expect(patches.baselineWork(baseline)).toEqual({ marksFirstTask: false, logsModelUsage: true, childrenInheritConfirmation: true, childrenTakeTenant: true, sendsApprovalNotices: true, joinsTenantAccount: true });
  });

  it('a run of 0.13.0 (or one without a baseline) marks its first task and logs no model usage', () => {
    expect(patches.baselineWork(new Set(patches.releases.at(-1)?.patches))).toEqual({ marksFirstTask: true, logsModelUsage: false, childrenInheritConfirmation: false, childrenTakeTenant: false, sendsApprovalNotices: false, joinsTenantAccount: false });
    expect(patches.baselineWork(undefined)).toEqual({ marksFirstTask: true, logsModelUsage: false, childrenInheritConfirmation: false, childrenTakeTenant: false, sendsApprovalNotices: false, joinsTenantAccount: false });
  });
});
