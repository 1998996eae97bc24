/**
 * Hostile input found by fuzzing must be refused where it enters and never harm the worker or
 * the run: a lone UTF-16 surrogate in an id (its echo made the failure unencodable, and the SDK
 * core shut down every worker that received the update), and a value nested 3000 levels deep
 * (accepted into an event, after which every events read threw).
 */
import { answerAwaitUpdate, decideCallUpdate, interveneUpdate } from '../../contracts';
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { waitFor } from '../support/wait';

const suite = agentSuite('hostile');

function nested(levels: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('hostile input to a waiting run', () => {
  it('an id with a lone surrogate and a 3000-level answer are refused; the worker and the run carry on', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'echo', args: { text: 'a' } }), finalStep('survived')], { confirmation: { all: true } }),
    );
    await waitFor('the approval request', async () => (await suite.agents.pendingInputs(workflowId)).approvals[0]);
    const handle = suite.env.client.workflow.getHandle(workflowId);

    // Sent through the raw handle, as any client could; each update is refused by its validator.
    for (let i = 0; i < 3; i++) {
      await expect(handle.executeUpdate(decideCallUpdate, { args: [{ decision: 'approve', toolCallId: '\ud800' }] })).rejects.toMatchObject({
        cause: { message: expect.stringContaining('toolCallId: must be well-formed Unicode text (it has a lone surrogate)') },
      });
    }
    await expect(handle.executeUpdate(interveneUpdate, { args: [{ kind: 'drop_call', toolCallId: 'x\udc00y' }] })).rejects.toMatchObject({
      cause: { message: expect.stringContaining('lone surrogate') },
    });
    await expect(
      handle.executeUpdate(decideCallUpdate, { args: [{ decision: 'edit', toolCallId: 'call_0_0', args: { text: nested(3000) } }] }),
    ).rejects.toMatchObject({ cause: { message: expect.stringContaining('nested deeper than 64 levels') } });
    await expect(
      handle.executeUpdate(answerAwaitUpdate, { args: [{ kind: 'clarification', itemId: 'c', answer: 'x', fields: { deep: nested(3000) } }] }),
    ).rejects.toMatchObject({ cause: { message: expect.stringContaining('nested deeper than 64 levels') } });
    // A 1 MB id is refused with a bounded message.
    const huge = 'z'.repeat(1_000_000);
    const refused = await handle.executeUpdate(decideCallUpdate, { args: [{ decision: 'approve', toolCallId: huge }] }).then(
      () => undefined,
      (err: { cause?: Error }) => err.cause,
    );
    expect(refused?.message.length).toBeLessThan(2_100);

    // The same worker still serves the run: the approval goes through and the run completes.
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('completed');
    expect((await suite.agents.events(workflowId, 0, 1000)).events.at(-1)).toMatchObject({ type: 'status_changed' });
  });
});
