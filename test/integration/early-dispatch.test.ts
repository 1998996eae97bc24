import type { RunEvent, RunInput } from '../../contracts';
import { callTools, cutOff, paced, say, toolCall } from '../../testing/fake-model';
import { replayHistoryJson } from '../../worker/replay';
import { modelSuite } from '../support/model-suite';
import { workflowBundleOption } from '../support/test-env';
import { waitFor } from '../support/wait';

const suite = modelSuite('early-dispatch');

function llmRun(earlyDispatch: boolean): RunInput {
  return { agent: 'toolbox-llm', messages: [{ role: 'user', content: 'run two steps' }], policy: { earlyDispatch } };
}

async function finished(workflowId: string): Promise<{ events: RunEvent[]; stepActivities: number }> {
  await suite.agents.result(workflowId);
  const events = (await suite.agents.events(workflowId, 0, 1000)).events;
  const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
  const stepActivities = (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'toolbox-llm/step').length;
  expect(await replayHistoryJson(JSON.parse(await suite.agents.exportHistory(workflowId)), await workflowBundleOption())).toMatchObject({ ok: true });
  return { events, stepActivities };
}

const seq = (events: RunEvent[], pick: (e: RunEvent) => boolean): number => events.find(pick)?.seq ?? -1;

describe('early dispatch: calls start while the model is still answering', () => {
  it('starts a complete call of a startEarly tool before the answer ends, and the plan claims it', async () => {
    suite.fake.script(paced(callTools(toolCall('step', { label: 'a', ms: 200 }, 'call_a'), toolCall('step', { label: 'b', ms: 0 }, 'call_b')), 1500), say('both done'));
    const { workflowId } = await suite.agents.start(llmRun(true));
    const { events, stepActivities } = await finished(workflowId);
    const plan = seq(events, (e) => e.type === 'plan' && e.decision === 'tool_calls');
    expect(events.find((e) => e.type === 'tool_call' && e.toolCallId === 'call_a')).toMatchObject({ early: true });
    // a started, and even finished, while the model was still streaming b.
    expect(seq(events, (e) => e.type === 'tool_call' && e.toolCallId === 'call_a')).toBeLessThan(plan);
    const history = (await suite.env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const scheduled = new Map(history.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [[String(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name ?? '']] : [])));
    const completedOrder = history.flatMap((e) => (e.activityTaskCompletedEventAttributes ? [scheduled.get(String(e.activityTaskCompletedEventAttributes.scheduledEventId))] : []));
    expect(completedOrder.slice(0, 2)).toEqual(['toolbox-llm/step', 'callModel']);
    // b was complete just before the stream's end: whether it started early or with the answer, it ran once.
    expect(stepActivities).toBe(2);
    expect(events.filter((e) => e.type === 'tool_result').map((e) => [(e as { toolCallId: string }).toolCallId, (e as { status: string }).status])).toEqual([
      ['call_a', 'ok'],
      ['call_b', 'ok'],
    ]);
    expect(events.some((e) => e.type === 'early_call_discarded')).toBe(false);
  });

  it('waits for the whole answer when the run does not ask for early dispatch', async () => {
    suite.fake.script(paced(callTools(toolCall('step', { label: 'a', ms: 0 }, 'call_a'), toolCall('step', { label: 'b', ms: 0 }, 'call_b')), 300), say('done'));
    const { workflowId } = await suite.agents.start(llmRun(false));
    const { events } = await finished(workflowId);
    expect(events.filter((e) => e.type === 'tool_call').every((e) => !('early' in e))).toBe(true);
    expect(suite.fake.requests.at(-2)?.body).toBeDefined();
  });

  it('discards an early call the final answer does not contain (a retried model call answered differently)', async () => {
    // The first attempt streams call_x completely, then the stream is cut: the activity retries.
    suite.fake.script(cutOff(callTools(toolCall('step', { label: 'x', ms: 5000 }, 'call_x')), 5), say('nothing to do after all'));
    const { workflowId } = await suite.agents.start(llmRun(true));
    const { events, stepActivities } = await finished(workflowId);
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ toolCallId: 'call_x', early: true });
    expect(events.find((e) => e.type === 'early_call_discarded')).toMatchObject({ toolCallId: 'call_x', reason: 'the final answer has no tool calls (final)' });
    expect(stepActivities).toBe(1);
    const transcript = (await suite.agents.result(workflowId)).final?.text;
    expect(transcript).toBe('nothing to do after all');
  });

  it('a kill while an early call runs ends it and logs it as discarded', async () => {
    suite.fake.script(paced(callTools(toolCall('step', { label: 'long', ms: 30_000 }, 'call_long'), toolCall('echo', { text: 'later' }, 'call_echo')), 20_000));
    const { workflowId } = await suite.agents.start(llmRun(true));
    await waitFor('the early call', async () => ((await suite.agents.events(workflowId, 0, 200)).events.some((e) => e.type === 'tool_call') ? true : undefined));
    await suite.agents.kill(workflowId, { reason: 'stop' });
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('terminated');
    const events = (await suite.agents.events(workflowId, 0, 1000)).events;
    expect(events.find((e) => e.type === 'early_call_discarded')).toMatchObject({ toolCallId: 'call_long', reason: 'the run was terminated' });
    expect(await replayHistoryJson(JSON.parse(await suite.agents.exportHistory(workflowId)), await workflowBundleOption())).toMatchObject({ ok: true });
  });
});
