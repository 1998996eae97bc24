import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { RunEvent } from '../../contracts';
import { cleanUpAll, childWorkerEnv, startChildWorker, type ChildWorker } from '../support/child-worker';
import { readSideEffects, sideEffectCounts } from '../support/file-side-effects';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { agentClient, createTestEnv, uniqueTaskQueue } from '../support/test-env';
import { waitFor } from '../support/wait';

let env: TestWorkflowEnvironment;
const workers: ChildWorker[] = [];

beforeAll(async () => {
  env = await createTestEnv();
});

afterAll(() =>
  cleanUpAll(
    () => Promise.all(workers.map((w) => w.stop())),
    () => env?.teardown(),
  ),
);

describe('durability with two workers', () => {
  it('killing one of two workers on a task queue mid-call moves its work to the other, each side effect once', async () => {
    const taskQueue = uniqueTaskQueue('durability-two');
    const { env: workerEnv, sideEffectFile } = childWorkerEnv(env.address, env.namespace ?? 'default', taskQueue);
    const agents = agentClient(env, taskQueue);
    workers.push(...(await Promise.all([startChildWorker(workerEnv), startChildWorker(workerEnv)])));

    const { workflowId } = await agents.start(
      scriptedInput([
        callStep({ name: 'record', args: { label: 'a' } }, { name: 'record', args: { label: 'b' } }),
        callStep(
          { name: 'record', args: { label: 'c', delayMs: 3_000 } },
          { name: 'record', args: { label: 'd', delayMs: 3_000 } },
          { name: 'record', args: { label: 'e', delayMs: 3_000 } },
        ),
        callStep({ name: 'record', args: { label: 'f', delayMs: 500 } }),
        callStep({ name: 'record', args: { label: 'g' } }),
        finalStep('one worker was enough'),
      ]),
    );

    // Find the worker running `c` (the server knows which one picked it up) and kill it.
    const handle = env.client.workflow.getHandle(workflowId);
    const identity = await waitFor('the c call to be picked up by a worker', async () => {
      const { pendingActivities } = await handle.describe().then((d) => d.raw);
      const c = (pendingActivities ?? []).find((p) => p.activityId === 'turn-1/call_1_0' && p.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED);
      return c?.lastWorkerIdentity || undefined;
    });
    const victim = workers.find((w) => identity.startsWith(`${w.pid}@`));
    const survivor = workers.find((w) => w !== victim);
    if (!victim || !survivor) throw new Error(`no test worker has identity ${identity}`);
    expect(sideEffectCounts(sideEffectFile)).toEqual({ a: 1, b: 1 });
    await victim.kill9();

    const result = await agents.result(workflowId);

    expect(result).toMatchObject({ status: 'completed', final: { text: 'one worker was enough' }, iterations: 4 });
    expect(sideEffectCounts(sideEffectFile)).toEqual({ a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1 });
    const effects = readSideEffects(sideEffectFile);
    expect(new Set(effects.map((e) => e.key)).size).toBe(7);
    // Every side effect after the kill happened on the survivor, `c` (cut off on the victim) included.
    const late = effects.filter((e) => ['c', 'd', 'e', 'f', 'g'].includes(e.label));
    expect(late.map((e) => e.pid)).toEqual(late.map(() => survivor.pid));

    // History: the calls done before the kill ran in one attempt; `c` was retried after its heartbeat timed out.
    const history = await handle.fetchHistory();
    const activityIds = new Map<string, string>();
    const attempts: Record<string, [number, unknown]> = {};
    for (const e of history.events ?? []) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled) activityIds.set(String(e.eventId), scheduled.activityId ?? '');
      const started = e.activityTaskStartedEventAttributes;
      if (started) attempts[activityIds.get(String(started.scheduledEventId)) ?? '?'] = [started.attempt ?? 0, started.lastFailure?.timeoutFailureInfo?.timeoutType];
    }
    expect(attempts['turn-0/call_0_0']).toEqual([1, undefined]);
    expect(attempts['turn-0/call_0_1']).toEqual([1, undefined]);
    expect(attempts['turn-1/call_1_0']).toEqual([2, temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT]);
    expect(Object.keys(attempts)).toHaveLength(7);

    const { events } = await agents.events(workflowId, 0, 1000);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const results = events.filter((e): e is Extract<RunEvent, { type: 'tool_result' }> => e.type === 'tool_result');
    expect(results.map((e) => e.toolCallId).sort()).toEqual(['call_0_0', 'call_0_1', 'call_1_0', 'call_1_1', 'call_1_2', 'call_2_0', 'call_3_0']);
    expect(results.every((e) => e.status === 'ok')).toBe(true);
  });
});
