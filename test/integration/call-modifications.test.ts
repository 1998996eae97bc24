/**
 * An operator's edit or drop of a call applies to a call planned and waiting to run, or is
 * refused at once with the reason: never queued for a call that finished, waits for a human, or
 * does not exist yet (call ids are predictable, so a queued edit would hit a future call).
 */
import { AgentClientError } from '../../client/agent-client';
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { waitFor } from '../support/wait';

const suite = agentSuite('modifications');
const echo = (text: string) => ({ name: 'echo', args: { text } });

async function statusOf(workflowId: string, status: string): Promise<void> {
  await waitFor(`status ${status}`, async () => ((await suite.agents.status(workflowId)).status === status ? true : undefined));
}

describe('edit-call and drop-call', () => {
  it('refuse a future call, by update and by signal; a pending one is changed', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep(echo('a'), echo('b')), callStep(echo('c')), finalStep('done')], { breakpoints: [{ point: 'after_llm' }] }),
    );
    await statusOf(workflowId, 'paused');

    const future = suite.agents.intervene(workflowId, { kind: 'edit_call', toolCallId: 'call_1_0', args: { text: 'hijacked' } });
    await expect(future).rejects.toBeInstanceOf(AgentClientError);
    await expect(future).rejects.toThrow('call "call_1_0" is not planned and waiting to run (it finished, or no such call exists yet); calls that can be changed now: call_0_0, call_0_1');
    await suite.agents.signal(workflowId, 'intervene', { kind: 'drop_call', toolCallId: 'call_1_0' });
    await waitFor('the refused signal', async () =>
      (await suite.agents.events(workflowId, 0, 1000)).events.find((e) => e.type === 'signal_rejected' && e.reason.includes('call "call_1_0" is not planned')),
    );

    await expect(suite.agents.intervene(workflowId, { kind: 'edit_call', toolCallId: 'call_0_1', args: { text: 'edited' } })).resolves.toMatchObject({ state: 'queued' });
    await suite.agents.intervene(workflowId, { kind: 'clear_breakpoint', point: 'after_llm' });
    await suite.agents.resume(workflowId);
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('completed');

    const events = (await suite.agents.events(workflowId, 0, 1000)).events;
    expect(events.filter((e) => e.type === 'intervention_queued')).toHaveLength(1);
    expect(events.find((e) => e.type === 'intervention_applied' && e.kind === 'edit_call')).toMatchObject({ detail: 'call_0_1 args {"text":"b"} -> {"text":"edited"}' });
    // call_1_0 ran with the planner's arguments: nothing was waiting for it.
    expect(events.find((e) => e.type === 'tool_call' && e.toolCallId === 'call_1_0')).toMatchObject({ args: { text: 'c' } });
  });

  it('refuse a call that waits for a human decision: decide it instead', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep(echo('a')), finalStep()], { confirmation: { all: true } }));
    await waitFor('the approval request', async () => (await suite.agents.pendingInputs(workflowId)).approvals[0]);
    await expect(suite.agents.intervene(workflowId, { kind: 'edit_call', toolCallId: 'call_0_0', args: { text: 'x' } })).rejects.toThrow(
      'call call_0_0 waits for a human decision; decide it instead (approve, reject, edit or replace)',
    );
    await suite.agents.decide(workflowId, { decision: 'edit', toolCallId: 'call_0_0', args: { text: 'decided' } });
    expect((await suite.agents.result(workflowId)).status).toBe('completed');
  });
});
