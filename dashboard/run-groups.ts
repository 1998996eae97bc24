import type { RunSummary } from './types';

/** A run as the list shows it: its newest execution, and how many earlier ones it had. */
export interface RunRow {
  readonly run: RunSummary;
  /** Earlier executions of the same workflow id (rewinds reset it, continue-as-new chains it). */
  readonly earlier: number;
}

/**
 * One row per workflow id: a rewound or continued run has an execution per time; the API folds
 * those of one page into a row (`earlierExecutions`), and rows of several pages fold here. The
 * list shows the newest and counts the others.
 */
export function groupByWorkflowId(runs: readonly RunSummary[]): RunRow[] {
  const rows = new Map<string, { run: RunSummary; earlier: number }>();
  for (const run of runs) {
    const row = rows.get(run.workflowId);
    const earlier = run.earlierExecutions ?? 0;
    if (!row) rows.set(run.workflowId, { run, earlier });
    else if (run.startTime > row.run.startTime) rows.set(run.workflowId, { run, earlier: row.earlier + 1 + earlier });
    else row.earlier += 1 + earlier;
  }
  return [...rows.values()];
}
