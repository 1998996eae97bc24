import type { RecordedRunTree } from './run-tree';

/** A run of a tree that waits for a person, as its history records it (no worker needed to read it). */
export interface RecordedWait {
  readonly workflowId: string;
  readonly agent: string | null;
  /** Call ids from the tree's top run down to this run (empty for the top run). */
  readonly path: readonly string[];
}

/**
 * The runs of a recorded tree whose last recorded status is `awaiting` (the AgentStatus the run
 * set when it began to wait, kept in its history and the server's visibility store), top run
 * first, then depth first. What each one asks lives in the run and needs a worker to read.
 */
export function recordedWaits(tree: RecordedRunTree): RecordedWait[] {
  const own = tree.status === 'awaiting' ? [{ workflowId: tree.workflowId, agent: tree.agent, path: tree.path }] : [];
  return [...own, ...tree.children.flatMap(recordedWaits)];
}
