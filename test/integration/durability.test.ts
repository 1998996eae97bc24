import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { RunEvent, SessionRunRecord } from '../../contracts';
import type { SessionScheduleDescription } from '../../client/session-schedules';
import { childWorkerEnv, startChildWorker, type ChildWorker } from '../support/child-worker';
import { readSideEffects } from '../support/file-side-effects';
import { addAapl, callStep, contextStep, finalStep, scriptedInput } from '../support/scripts';
import { agentClient, createTestEnv, uniqueTaskQueue } from '../support/test-env';
import { waitFor } from '../support/wait';

let env: TestWorkflowEnvironment;
const workers: ChildWorker[] = [];

beforeAll(async () => {
  env = await createTestEnv();
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await env?.teardown();
});

describe('durability', () => {
  it('a worker killed with SIGKILL mid-tool loses nothing and re-runs no completed tool', async () => {
    const taskQueue = uniqueTaskQueue('durability');
    const { env: workerEnv, sideEffectFile } = childWorkerEnv(env.address, env.namespace ?? 'default', taskQueue);
    const agents = agentClient(env, taskQueue);
    const first = await startChildWorker(workerEnv);
    workers.push(first);

    const { workflowId } = await agents.start(
      scriptedInput([
        callStep({ name: 'record', args: { label: 'a' } }, { name: 'record', args: { label: 'b' } }),
        callStep({ name: 'record', args: { label: 'c', delayMs: 3_000 } }),
        callStep({ name: 'record', args: { label: 'd' } }),
        finalStep('survived'),
      ]),
    );

    // Kill the worker while `c` is running: `a` and `b` are done, `c` has not recorded yet.
    await waitFor('the c call to start', async () => {
      const { events } = await agents.events(workflowId, 0, 1000);
      return events.find((e) => e.type === 'tool_call' && e.toolCallId === 'call_1_0');
    });
    await new Promise((r) => setTimeout(r, 500));
    await first.kill9();
    expect(readSideEffects(sideEffectFile).map((e) => e.label).sort()).toEqual(['a', 'b']);

    const second = await startChildWorker(workerEnv);
    workers.push(second);
    const result = await agents.result(workflowId);

    expect(result).toMatchObject({ status: 'completed', final: { text: 'survived' }, iterations: 3 });
    const effects = readSideEffects(sideEffectFile);
    // Every tool's side effect happened exactly once, and the ones after the crash on the new worker.
    expect(effects.map((e) => e.label).sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(effects.find((e) => e.label === 'c')?.pid).toBe(second.process.pid);
    expect(new Set(effects.map((e) => e.key)).size).toBe(4);

    const { events } = await agents.events(workflowId, 0, 1000);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const results = events.filter((e): e is Extract<RunEvent, { type: 'tool_result' }> => e.type === 'tool_result');
    // The two calls of turn 0 run in parallel: either may finish first.
    expect(results.map((e) => e.toolCallId).sort()).toEqual(['call_0_0', 'call_0_1', 'call_1_0', 'call_2_0']);
    expect(results.map((e) => e.turn)).toEqual([0, 0, 1, 2]);
    expect(results.every((e) => e.status === 'ok')).toBe(true);
  });
});

describe('an operator right after a worker crash', () => {
  it('a decision sent the moment the worker that ran the run dies is taken by the standby worker, not refused as "no worker"', async () => {
    const taskQueue = uniqueTaskQueue('sticky-crash');
    const { env: workerEnv } = childWorkerEnv(env.address, env.namespace ?? 'default', taskQueue);
    const agents = agentClient(env, taskQueue);
    const first = await startChildWorker(workerEnv);
    workers.push(first);
    const { workflowId } = await agents.start(scriptedInput([callStep({ name: 'echo', args: { text: 'pay' } }), finalStep('paid')], { confirmation: { tools: ['echo'] } }));
    await waitFor('the approval', async () => ((await agents.pendingInputs(workflowId, { subAgents: false })).approvals.length === 1 ? true : undefined));
    // A second worker polls the same queue; the run's tasks still go to the first one's sticky queue.
    const standby = await startChildWorker(workerEnv);
    workers.push(standby);
    await first.kill9();

    // At once: the client's worker probe and the update must reach the standby worker, not wait on
    // the dead worker's sticky queue (the SIGKILL closed its polls).
    await agents.decide(workflowId, { toolCallId: 'call_0_0', decision: 'approve', by: 'ops' });
    expect(await agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'paid' } });
  });
});

describe('a session message taken just before its worker is killed', () => {
  it('a steer and an interrupt accepted by the session reach their run once the next worker polls: the steer seen once, the interrupt ends the run and its message runs next', async () => {
    const taskQueue = uniqueTaskQueue('session-kill');
    const { env: workerEnv } = childWorkerEnv(env.address, env.namespace ?? 'default', taskQueue);
    const agents = agentClient(env, taskQueue);
    const first = await startChildWorker(workerEnv);
    workers.push(first);
    // Two sessions whose first runs wait for an approval.
    const held = await Promise.all(
      (['steer', 'interrupt'] as const).map(async (whenBusy) => {
        const session = agents.session(`kill-${whenBusy}-${Date.now()}`);
        await session.open({ agent: 'watchlist-scripted', sessionState: { watchlist: [] } });
        const record = await session.sendMessage({ content: 'Track AAPL', plannerOptions: { steps: [addAapl, contextStep] } });
        const run = agents.run(record.workflowId);
        await waitFor('the approval', async () => ((await run.pendingInputs().catch(() => undefined))?.approvals.length ? true : undefined));
        return { whenBusy, session, run };
      }),
    );
    // Taken by the sessions, and at once the worker dies: the runs have not seen them yet.
    const taken = await Promise.all(held.map(({ whenBusy, session }) => session.sendMessage({ content: 'Actually, MSFT', whenBusy, messageId: `late-${whenBusy}`, plannerOptions: { steps: [finalStep('MSFT then')] } })));
    await first.kill9();
    expect(taken.map((t) => t.delivery)).toEqual(['steered', 'next']);
    workers.push(await startChildWorker(workerEnv));

    const [steer, interrupt] = held as [(typeof held)[number], (typeof held)[number]];
    const { approvals } = await steer.run.pendingInputs();
    await steer.run.decide({ toolCallId: approvals[0]!.toolCallId, decision: 'approve' });
    expect(await steer.run.result()).toMatchObject({ status: 'completed', steered: ['late-steer'] });
    const injected = (await steer.run.events()).events.filter((e: RunEvent) => e.type === 'intervention_applied' && e.kind === 'inject_message');
    expect(injected).toHaveLength(1);

    expect(await interrupt.run.result()).toMatchObject({ status: 'terminated' });
    const next = agents.run(taken[1]!.workflowId);
    expect(taken[1]).toMatchObject({ runNumber: 2, messageId: 'late-interrupt' });
    expect(await next.result()).toMatchObject({ status: 'completed' });
    const runs = await waitFor('both runs recorded', async () => {
      const listed = await interrupt.session.runs();
      return listed.length === 2 && listed[1]?.status === 'completed' ? listed : undefined;
    });
    expect(runs.map((r) => [r.runNumber, r.status, r.endedBy])).toEqual([
      [1, 'terminated', 'interrupt'],
      [2, 'completed', undefined],
    ]);
    await Promise.all(held.map(({ session }) => session.close()));
  });
});

describe('a schedule across a worker kill', () => {
  it('a firing every second while the worker is killed and restarted: every firing taken becomes one run, none is lost', async () => {
    const taskQueue = uniqueTaskQueue('schedule-kill');
    const { env: workerEnv } = childWorkerEnv(env.address, env.namespace ?? 'default', taskQueue);
    const agents = agentClient(env, taskQueue);
    const first = await startChildWorker(workerEnv);
    workers.push(first);
    const session = agents.session(`schedule-kill-${Date.now()}`);
    await session.open({ agent: 'scripted' });
    const schedule = await session.schedules.create('tick', { every: '1s', remainingActions: 6, message: { content: 'tick', plannerOptions: { steps: [finalStep('tick')] } } });
    // A deliverer cut off by the kill resumes once its workflow task (10 s) or its activity (30 s) times out.
    const described = (what: string, test: (d: SessionScheduleDescription) => boolean) =>
      waitFor(
        what,
        async () => {
          const d = await schedule.describe();
          return test(d) && d.recentFirings.length === d.firings ? d : undefined;
        },
        90_000,
      );

    await described('two firings', (d) => d.firings >= 2);
    await first.kill9();
    // The schedule keeps firing while no worker runs: one deliverer waits for a worker (one the
    // kill cut off, or the next firing's), one more firing waits behind it, and the rest are
    // skipped as overlapping.
    await described('a firing skipped while no worker runs', (d) => d.skippedOverlap > 0);
    const second = await startChildWorker(workerEnv);
    workers.push(second);

    const spent = await described('all six firings', (d) => d.firings === 6);
    const records = await Promise.all(spent.recentFirings.map((f) => env.client.workflow.getHandle(f.workflowId, f.runId).result() as Promise<SessionRunRecord>));
    expect(new Set(records.map((r) => r.runNumber)).size).toBe(6);
    const runs = await waitFor('six completed runs', async () => {
      const listed = await session.runs();
      return listed.length >= 6 && listed.every((r) => r.status === 'completed') ? listed : undefined;
    });
    // One run per firing: none lost, none twice (a delivery cut off by the kill after the session
    // took it is sent again under the same message id, which the session takes once).
    expect(runs).toHaveLength(6);
    await schedule.delete();
    await session.close();
  });
});
