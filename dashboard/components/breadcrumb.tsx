import { useEffect, useState } from 'preact/hooks';
import { api, runPath } from '../api';
import { linkTo } from '../router';
import type { RunStatusReport } from '../types';
import { pathLabel } from './pending-panel';

type Parent = NonNullable<RunStatusReport['parent']>;

/** A run above this one: its workflow id and its path from the top run. */
interface Ancestor {
  readonly workflowId: string;
  readonly path: readonly string[];
}

/**
 * The runs above a sub-agent run, top run first: its parent, the parent's parent, … (one status
 * read each, once per page; a read that fails ends the climb there).
 */
function useAncestors(parent: Parent | undefined): Ancestor[] {
  const [ancestors, setAncestors] = useState<Ancestor[]>([]);
  const key = parent ? `${parent.workflowId}\n${parent.path.join('/')}` : '';
  useEffect(() => {
    if (!parent) return;
    let live = true;
    // A run's path is the call ids from the top run down to it: its parent's path is one shorter.
    const climb = async (): Promise<void> => {
      let above: Ancestor = { workflowId: parent.workflowId, path: parent.path.slice(0, -1) };
      const found = [above];
      setAncestors([...found]);
      for (let level = 0; level < parent.path.length && above.path.length > 0; level++) {
        const report = await api<RunStatusReport>(runPath(above.workflowId)).catch(() => undefined);
        if (!live || !report?.parent) return;
        above = { workflowId: report.parent.workflowId, path: report.parent.path.slice(0, -1) };
        found.unshift(above);
        setAncestors([...found]);
      }
    };
    void climb();
    return () => {
      live = false;
    };
    // `key` stands for `parent`, which is a new object on every status read.
  }, [key]);
  return parent ? ancestors : [];
}

/** Where a sub-agent run sits: links up to each run above it, the top run first, then this run's path. */
export function Breadcrumb({ parent }: { parent?: Parent | undefined }) {
  const ancestors = useAncestors(parent);
  if (!parent) return null;
  return (
    <nav class="breadcrumb" data-testid="breadcrumb">
      {ancestors.map((a) => (
        <span key={a.workflowId}>
          <a href={linkTo({ view: 'run', id: a.workflowId })} data-testid="breadcrumb-run" data-path={pathLabel(a.path)}>
            {a.path.length === 0 ? a.workflowId : pathLabel(a.path)}
          </a>
          {' › '}
        </span>
      ))}
      <b>{pathLabel(parent.path)}</b>
    </nav>
  );
}
