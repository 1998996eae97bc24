import { groupByWorkflowId } from '../../dashboard/run-groups';
import type { RunSummary } from '../../dashboard/types';

const run = (workflowId: string, runId: string, startTime: string): RunSummary => ({ workflowId, runId, status: 'completed', temporalStatus: 'COMPLETED', startTime, waitingForHuman: false }) as RunSummary;

describe('the runs list groups executions by workflow id', () => {
  it('shows the newest execution of a rewound run once and counts the others, keeping the order of first appearance', () => {
    const rows = groupByWorkflowId([
      run('a', 'a3', '2026-01-01T00:03:00Z'),
      run('b', 'b1', '2026-01-01T00:02:30Z'),
      run('a', 'a2', '2026-01-01T00:02:00Z'),
      run('a', 'a1', '2026-01-01T00:01:00Z'),
    ]);
    expect(rows.map((r) => [r.run.runId, r.earlier])).toEqual([
      ['a3', 2],
      ['b1', 0],
    ]);
  });

  it('counts the executions the API folded into a row', () => {
    const rows = groupByWorkflowId([{ ...run('a', 'a3', '2026-01-01T00:03:00Z'), earlierExecutions: 2 }, run('b', 'b1', '2026-01-01T00:02:30Z')]);
    expect(rows.map((r) => [r.run.runId, r.earlier])).toEqual([
      ['a3', 2],
      ['b1', 0],
    ]);
  });

  it('keeps the newest even when the listing is not newest first', () => {
    const rows = groupByWorkflowId([run('a', 'a1', '2026-01-01T00:01:00Z'), run('a', 'a2', '2026-01-01T00:02:00Z')]);
    expect(rows.map((r) => [r.run.runId, r.earlier])).toEqual([['a2', 1]]);
  });
});
