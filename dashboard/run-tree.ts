/**
 * How the run page shows a tree of sub-agent runs: pure functions, no browser APIs.
 */
import type { PendingInputs, TreePending, TreeRun } from './types';

/** A run of the tree with its sub-agent runs under it, and what it waits on from people. */
export interface TreeNode {
  readonly run: TreeRun;
  readonly pending?: TreePending | undefined;
  readonly children: readonly TreeNode[];
}

const pathKey = (path: readonly string[]): string => path.join('/');

/**
 * The sub-agent runs of the tree's root, nested by path (the API lists the runs flat, root first,
 * depth first), each with its entry of `pending`. A run whose parent is not listed goes under
 * the nearest listed ancestor.
 */
export function nestTree(runs: readonly TreeRun[], pending: readonly TreePending[] = []): TreeNode[] {
  const waiting = new Map(pending.map((p) => [pathKey(p.path), p]));
  const byPath = new Map<string, { run: TreeRun; pending?: TreePending | undefined; children: TreeNode[] }>();
  const roots: TreeNode[] = [];
  for (const run of runs) {
    if (run.path.length === 0) continue;
    const node = { run, pending: waiting.get(pathKey(run.path)), children: [] as TreeNode[] };
    byPath.set(pathKey(run.path), node);
    let parent: { children: TreeNode[] } | undefined;
    for (let depth = run.path.length - 1; depth > 0 && !parent; depth--) parent = byPath.get(pathKey(run.path.slice(0, depth)));
    (parent?.children ?? roots).push(node);
  }
  return roots;
}

/** How many runs a forest holds, all levels. */
export function countRuns(nodes: readonly TreeNode[]): number {
  return nodes.reduce((n, node) => n + 1 + countRuns(node.children), 0);
}

const statusWords: Record<string, string> = {
  running: 'running',
  pausing: 'pausing',
  paused: 'paused',
  awaiting: 'waiting for a person',
  completed: 'completed',
  failed: 'failed',
  terminated: 'terminated',
};

/** A run's status in words, saying what a person is asked when that is what it waits for. */
export function statusInWords(status: string, pending?: PendingInputs): string {
  const approvals = pending?.approvals.length ?? 0;
  if (approvals === 1) return 'waiting for approval';
  if (approvals > 1) return `waiting for ${approvals} approvals`;
  if (pending?.await) return 'waiting for an answer';
  return statusWords[status] ?? status;
}
