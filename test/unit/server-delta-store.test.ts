/**
 * Token deltas held by the server are bounded in bytes (per run and in all), drop what is older
 * than the current turn, and are taken from publishers only for runs that exist and are open.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AgentClient } from '../../client/agent-client';
import type { TokenDelta } from '../../contracts/deltas';
import { LiveHub } from '../../server/live';
import { DeltaStore, deltaBytes } from '../../server/live/delta-store';
import { OpenRuns } from '../../server/live/open-runs';

const d = (extra: Partial<TokenDelta>): TokenDelta => ({ workflowId: 'w', activityId: '1', attempt: 1, turn: 0, seq: 0, kind: 'text', text: 'x', at: 0, ...extra });

/** A client whose describe answers from `statuses` (missing: not found), counting the calls. */
function fakeAgents(statuses: Record<string, string | Error>): { agents: AgentClient; describes: string[] } {
  const describes: string[] = [];
  const workflow = {
    getHandle: (workflowId: string) => ({
      describe: async () => {
        describes.push(workflowId);
        const status = statuses[workflowId];
        if (status instanceof Error) throw status;
        if (status === undefined) throw new WorkflowNotFoundError('not found', workflowId, undefined);
        return { status: { name: status } };
      },
    }),
  };
  return { agents: { client: { workflow } } as unknown as AgentClient, describes };
}

describe('delta store bounds', () => {
  it('keeps at most maxBytesPerRun of a run; later deltas of the call are "full" (sent live, not kept)', () => {
    const store = new DeltaStore({ maxBytesPerRun: 10_000 });
    const admissions = Array.from({ length: 100 }, (_, seq) => store.add(d({ seq, text: 'y'.repeat(1000) })));
    expect(store.byteSize).toBeLessThanOrEqual(10_000);
    expect(store.current('w').length).toBe(Math.floor(10_000 / deltaBytes(d({ text: 'y'.repeat(1000) }))));
    expect(admissions.at(-1)).toBe('full');
    // A new call of the run starts a fresh share.
    expect(store.add(d({ activityId: '2', turn: 1, text: 'next' }))).toBe('kept');
    expect(store.current('w').map((x) => x.text)).toEqual(['next']);
    expect(store.byteSize).toBe(deltaBytes(d({ activityId: '2', turn: 1, text: 'next' })));
  });

  it('keeps at most maxBytes in all, evicting the least recently updated runs', () => {
    const store = new DeltaStore({ maxBytes: 50_000 });
    for (let i = 0; i < 100; i++) store.add(d({ workflowId: `run-${i}`, text: 'z'.repeat(2_000) }));
    expect(store.byteSize).toBeLessThanOrEqual(50_000);
    expect(store.current('run-99')).toHaveLength(1);
    expect(store.current('run-0')).toEqual([]);
    store.forget('run-99');
    store.turnLanded('run-98', 0);
    expect(store.byteSize).toBeLessThanOrEqual(50_000 - 2 * deltaBytes(d({ workflowId: 'run-99', text: 'z'.repeat(2_000) })));
  });

  it('holds a bounded number of bytes however many 100 KB deltas come for made-up runs (default 32 MiB)', () => {
    const { agents } = fakeAgents({});
    const hub = new LiveHub(agents);
    const text = 'q'.repeat(100_000);
    for (let run = 0; run < 50; run++) hub.publishBatch(Array.from({ length: 200 }, (_, seq) => d({ workflowId: `made-up-${run}`, seq, text })));
    // 1 GB of delta text was published; what stays is bounded.
    expect(hub.stats().deltaBytes).toBeLessThanOrEqual(32 * 1024 * 1024);
    expect(hub.currentDeltas('made-up-49').length).toBeLessThanOrEqual(Math.ceil((1024 * 1024) / (2 * 100_000)));
  });

  it('drops deltas of a turn older than the current call instead of replacing it', () => {
    const store = new DeltaStore();
    expect(store.add(d({ activityId: 'a', turn: 3, text: 'turn 3' }))).toBe('kept');
    expect(store.add(d({ activityId: 'b', turn: 2, text: 'turn 2, late' }))).toBe('late');
    expect(store.current('w').map((x) => x.text)).toEqual(['turn 3']);
    expect(store.add(d({ activityId: 'c', turn: 4, text: 'turn 4' }))).toBe('kept');
    expect(store.current('w').map((x) => x.text)).toEqual(['turn 4']);
  });
});

describe('open runs for publishers', () => {
  it('asks Temporal once per run while the answer is fresh, and again after it expires', async () => {
    const { agents, describes } = fakeAgents({ open: 'RUNNING', done: 'COMPLETED' });
    let now = 1_000;
    const runs = new OpenRuns(agents, { ttlMs: 5_000 }, () => now);
    expect(await Promise.all([runs.isOpen('open'), runs.isOpen('open'), runs.isOpen('done'), runs.isOpen('made-up')])).toEqual([true, true, false, false]);
    expect(await runs.isOpen('made-up')).toBe(false);
    expect(describes.sort()).toEqual(['done', 'made-up', 'open']);
    now += 5_001;
    expect(await runs.isOpen('open')).toBe(true);
    expect(describes.filter((id) => id === 'open')).toHaveLength(2);
  });

  it('does not keep an answer when Temporal could not be asked', async () => {
    const { agents, describes } = fakeAgents({ flaky: new Error('14 UNAVAILABLE') });
    const runs = new OpenRuns(agents);
    expect(await runs.isOpen('flaky')).toBe(false);
    expect(await runs.isOpen('flaky')).toBe(false);
    expect(describes).toEqual(['flaky', 'flaky']);
  });

  it('a posted batch keeps only the deltas of open runs; the rest are refused and counted', async () => {
    const { agents } = fakeAgents({ open: 'RUNNING', done: 'COMPLETED' });
    const hub = new LiveHub(agents);
    const refused = await hub.publishPosted([d({ workflowId: 'open' }), d({ workflowId: 'done' }), d({ workflowId: 'made-up', text: 'x'.repeat(100_000) })]);
    expect(refused.sort()).toEqual(['done', 'made-up']);
    expect(hub.currentDeltas('open')).toHaveLength(1);
    expect(hub.currentDeltas('made-up')).toEqual([]);
    expect(hub.stats()).toMatchObject({ deltasReceived: 1, deltasRefused: 2 });
  });
});
