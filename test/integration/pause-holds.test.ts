/**
 * Once a run is paused, nothing new starts until resume: parallel calls wait at their safe point
 * with the one that paused the run, and a call approved during a pause waits to be dispatched.
 */
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { waitFor } from '../support/wait';

const suite = agentSuite('pause-holds');
const echo = (text: string) => ({ name: 'echo', args: { text } });

async function events(workflowId: string) {
  return (await suite.agents.events(workflowId, 0, 1000)).events;
}

/**
 * Nothing started while the run was paused: in the finished run's events, no tool call comes
 * before the (only) resume. Holds for the whole pause, not just for a moment after it began.
 */
function noCallBeforeResume(all: Awaited<ReturnType<typeof events>>): void {
  const resumed = all.findIndex((e) => e.type === 'resumed');
  expect(resumed).toBeGreaterThan(all.findIndex((e) => e.type === 'paused'));
  expect(all.slice(0, resumed).filter((e) => e.type === 'tool_call')).toEqual([]);
}

describe('a pause holds every call', () => {
  it('a before_tool breakpoint in a parallel turn holds all its calls; they can be edited, then run on resume', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep(echo('a'), echo('b'), echo('c')), finalStep('done')], { breakpoints: [{ point: 'before_tool', once: true }] }),
    );
    await waitFor('paused', async () => ((await suite.agents.status(workflowId)).status === 'paused' ? true : undefined));
    expect((await events(workflowId)).filter((e) => e.type === 'tool_call')).toEqual([]);
    expect((await suite.agents.status(workflowId)).pendingCalls.every((c) => !c.dispatched)).toBe(true);
    await expect(suite.agents.intervene(workflowId, { kind: 'edit_call', toolCallId: 'call_0_2', args: { text: 'edited' } })).resolves.toMatchObject({ state: 'queued' });

    await suite.agents.resume(workflowId);
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed' });
    noCallBeforeResume(await events(workflowId));
    const calls = (await events(workflowId)).filter((e) => e.type === 'tool_call');
    expect(calls.map((e) => (e as unknown as { args: { text: string } }).args.text).sort()).toEqual(['a', 'b', 'edited']);
  });

  it('a call approved while the run is paused starts only after resume', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep(echo('a')), finalStep('done')], { confirmation: { all: true } }));
    await waitFor('the approval request', async () => (await suite.agents.pendingInputs(workflowId)).approvals[0]);
    await suite.agents.signal(workflowId, 'pause', { reason: 'hold everything' });
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    await waitFor('paused', async () => ((await suite.agents.status(workflowId)).status === 'paused' ? true : undefined));
    expect((await events(workflowId)).filter((e) => e.type === 'tool_call')).toEqual([]);

    await suite.agents.resume(workflowId);
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed' });
    noCallBeforeResume(await events(workflowId));
    expect((await events(workflowId)).filter((e) => e.type === 'tool_call')).toHaveLength(1);
  });

  it('a kill while calls are held ends the run with them cancelled', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep(echo('a'), echo('b')), finalStep('done')], { breakpoints: [{ point: 'before_tool', once: true }] }),
    );
    await waitFor('paused', async () => ((await suite.agents.status(workflowId)).status === 'paused' ? true : undefined));
    await suite.agents.kill(workflowId, { reason: 'enough' });
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('terminated');
    expect((await events(workflowId)).filter((e) => e.type === 'tool_call')).toEqual([]);
  });
});
