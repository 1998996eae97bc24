import { countRuns, nestTree, statusInWords } from '../../dashboard/run-tree';
import { markerSeq, rewindMarkers } from '../../dashboard/timeline-state';
import type { RunEvent } from '../../contracts';
import type { RunRewind, TreePending, TreeRun } from '../../dashboard/types';

const run = (...path: string[]): TreeRun => ({ workflowId: `wf/${path.join('/')}`, agent: 'scripted', status: 'running', path, ...(path.length ? { toolCallId: path.at(-1) } : {}) });
const waiting = (path: string[], approvals: number): TreePending => ({
  workflowId: `wf/${path.join('/')}`,
  path,
  approvals: Array.from({ length: approvals }, (_, i) => ({ toolCallId: `call_0_${i}`, name: 'transfer', args: {}, turn: 0 })) as never,
});

/** How the run page shows the tree of sub-agent runs and where a run was rewound. */
describe('the dashboard run tree', () => {
  it('nests the flat list of the tree route by path, depth first, each run with what it waits on', () => {
    const nodes = nestTree([run(), run('team'), run('team', 'pay'), run('team', 'check'), run('solo')], [waiting(['team', 'pay'], 2)]);
    const shape = (n: (typeof nodes)[number]): unknown => [n.run.path.join('/'), n.pending?.approvals.length ?? 0, n.children.map(shape)];
    expect(nodes.map(shape)).toEqual([
      ['team', 0, [['team/pay', 2, []], ['team/check', 0, []]]],
      ['solo', 0, []],
    ]);
    expect(countRuns(nodes)).toBe(4);
  });

  it('puts a run whose parent is not listed under its nearest listed ancestor', () => {
    expect(nestTree([run(), run('a'), run('a', 'b', 'c')]).map((n) => [n.run.path.join('/'), n.children.map((c) => c.run.path.join('/'))])).toEqual([['a', ['a/b/c']]]);
  });

  it('says what a person is asked, else the status in words', () => {
    expect(statusInWords('awaiting', waiting(['x'], 1))).toBe('waiting for approval');
    expect(statusInWords('awaiting', waiting(['x'], 3))).toBe('waiting for 3 approvals');
    expect(statusInWords('awaiting', { approvals: [], await: { id: 'a', items: [] } } as never)).toBe('waiting for an answer');
    expect(statusInWords('awaiting')).toBe('waiting for a person');
    expect(statusInWords('completed')).toBe('completed');
  });
});

describe('the dashboard rewind markers', () => {
  const event = (seq: number, at: string): RunEvent => ({ seq, at, type: 'pause_requested', reason: `e${seq}` });
  const events = [event(1, '2026-01-01T00:00:01.000Z'), event(2, '2026-01-01T00:00:02.000Z'), event(5, '2026-01-01T00:00:09.000Z'), event(6, '2026-01-01T00:00:09.500Z')];
  const recorded: RunRewind = { runId: 'r2', replacedRunId: 'r1', time: '2026-01-01T00:00:09.000Z', turn: 1, eventId: 12, reason: 'again', corrections: [] };

  it('shows the recorded rewinds once read, and the live ones until then', () => {
    const live = [{ fromSeq: 5, at: '2026-01-01T00:00:10.000Z' }];
    expect(rewindMarkers(live, undefined)).toEqual([{ key: 'live-2026-01-01T00:00:10.000Z', at: '2026-01-01T00:00:10.000Z', fromSeq: 5 }]);
    expect(rewindMarkers(live, [recorded])).toEqual([{ key: 'r2/12', at: recorded.time, recorded }]);
    expect(rewindMarkers(live, [])).toEqual([]);
  });

  it('places a recorded rewind before the first event at or after it, a live one by seq, and after the last event when none follows', () => {
    expect(markerSeq(events, { key: 'k', at: recorded.time, recorded })).toBe(5);
    expect(markerSeq(events, { key: 'k', at: '2026-01-01T00:00:01.000Z', fromSeq: 3 })).toBe(5);
    expect(markerSeq(events, { key: 'k', at: '2026-01-01T00:01:00.000Z', recorded })).toBeUndefined();
  });
});
