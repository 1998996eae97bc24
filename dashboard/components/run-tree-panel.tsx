import { linkTo } from '../router';
import { countRuns, nestTree, statusInWords, type TreeNode } from '../run-tree';
import type { RunTreeView } from '../types';
import { formatDuration } from '../durations';
import { pathLabel, TreeEntry, waitsForPerson } from './pending-panel';
import { StatusBadge } from './status-badge';

/** How long a run took, or has been running (now, by the browser's clock). */
function duration(node: TreeNode): string {
  const { startTime, closeTime } = node.run;
  if (!startTime) return '';
  const ms = (closeTime ? Date.parse(closeTime) : Date.now()) - Date.parse(startTime);
  if (Number.isNaN(ms)) return '';
  return closeTime ? `took ${formatDuration(Math.max(0, ms))}` : `for ${formatDuration(Math.max(0, ms))}`;
}

function Node({ node, canAnswer, onChange }: { node: TreeNode; canAnswer: boolean; onChange: () => void }) {
  const { run, pending } = node;
  const path = pathLabel(run.path);
  const took = duration(node);
  return (
    <li data-testid="tree-node" data-path={path} data-workflow-id={run.workflowId}>
      <div class="node">
        <a href={linkTo({ view: 'run', id: run.workflowId })}>{path}</a> <b>{run.agent}</b> <StatusBadge status={pending && waitsForPerson(pending) ? 'awaiting' : run.status} label={statusInWords(run.status, pending)} />
        <span class="hint">
          {run.toolCallId ? ` started by call ${run.toolCallId}` : ''}
          {took ? ` · ${took}` : ''}
        </span>
      </div>
      {pending && waitsForPerson(pending) && <TreeEntry entry={pending} canAnswer={canAnswer} onChange={onChange} testId="sub-agent-pending" titled={false} />}
      {node.children.length > 0 && (
        <ul class="tree">
          {node.children.map((child) => (
            <Node key={child.run.workflowId} node={child} canAnswer={canAnswer} onChange={onChange} />
          ))}
        </ul>
      )}
    </li>
  );
}

/**
 * The run's sub-agent runs, theirs, and so on (GET /api/runs/:id/tree): each with its agent,
 * its status in words, the call that started it, how long it ran, a link to its page, and what
 * it waits on from people, answered in place.
 */
export function RunTreePanel({ tree, canAnswer, onChange }: { tree?: RunTreeView | undefined; canAnswer: boolean; onChange: () => void }) {
  const nodes = nestTree(tree?.runs ?? [], tree?.pending ?? []);
  if (nodes.length === 0) return null;
  return (
    <section class="panel" id="sub-agent-runs" data-testid="run-tree">
      <h2>
        Sub-agent runs <span class="hint">({countRuns(nodes)})</span>
      </h2>
      {!canAnswer && tree?.pending.some((p) => p.path.length > 0) && <p class="hint">Approvals and answers need the operator role.</p>}
      <ul class="tree">
        {nodes.map((node) => (
          <Node key={node.run.workflowId} node={node} canAnswer={canAnswer} onChange={onChange} />
        ))}
      </ul>
    </section>
  );
}
