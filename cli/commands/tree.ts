import type { Command } from '../command';
import { readOrRecorded } from '../../client/no-worker-reads';
import { queryTimeoutMs, showingRecordedBecause } from '../follow';
import type { RecordedRunTree, RunTree } from '../../client/run-tree';

/** The runs of a tree, one line each, indented by depth: `CALL -> WORKFLOW-ID  AGENT  STATUS`. */
export function renderTree(tree: RunTree | RecordedRunTree, depth = 0): string[] {
  const label = tree.toolCallId ? `${tree.toolCallId} -> ` : '';
  return [`${'  '.repeat(depth)}${label}${tree.workflowId}  ${tree.agent ?? '-'}  ${tree.status}`, ...tree.children.flatMap((c) => renderTree(c, depth + 1))];
}

/** `tree RUN`: the run and the sub-agent runs its agent tools started, with what they wait on. */
export const treeCommand: Command = {
  name: 'tree',
  summary: 'show a run and its sub-agent runs (agent tools), with their status and pending approvals',
  details: 'Approve a sub-agent call from the root with: approve ROOT --path CALL[/CALL...] --call ID',
  positionals: ['RUN'],
  options: {},
  examples: ['tree run-research-k3j9x2ab', 'tree run-research-k3j9x2ab --json'],
  prepare(args) {
    const runId = args.positional(0);
    return async (ctx) => {
      const tree: RunTree | undefined = await readOrRecorded(
        ctx.agents,
        runId,
        () => ctx.agents.tree(runId, { timeoutMs: queryTimeoutMs }),
        async (why) => {
          const recorded = await ctx.agents.treeFromHistory(runId);
          showingRecordedBecause(ctx, why);
          ctx.out.emit({ source: 'history', tree: recorded }, () => renderTree(recorded));
          return undefined;
        },
      );
      if (!tree) return;
      const pending = await ctx.agents.pendingInputsTree(runId, { timeoutMs: queryTimeoutMs });
      ctx.out.emit({ tree, pending }, () => {
        const lines = renderTree(tree);
        for (const p of pending) {
          for (const a of p.approvals) lines.push(`waiting: ${p.path.join('/') || '(root)'} ${a.name}(${a.toolCallId}) ${JSON.stringify(a.args)}`);
          if (p.await) lines.push(`waiting: ${p.path.join('/') || '(root)'} await ${p.await.awaitId}`);
        }
        return lines.join('\n');
      });
    };
  },
};
