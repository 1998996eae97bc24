/**
 * A bug in an agent's own code (a hook or a confirmation rule that throws) fails the run with a
 * clear `hook_failed` error: retrying the workflow task would fail the same way forever. A
 * planner that breaks its own `synchronous` declaration still runs.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';

const suite = agentSuite('agent-code-bugs');

async function failure(workflowId: string): Promise<{ message: string; type?: string }> {
  const err = await suite.agents.result(workflowId).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return (err as WorkflowFailedError).cause as unknown as { message: string; type?: string };
}

describe('agent code that throws', () => {
  it('a before_tool hook that throws fails the run with hook_failed, naming agent and hook', async () => {
    const { workflowId } = await suite.agents.start({ ...scriptedInput([callStep({ name: 'echo', args: { text: 'explode' } }), finalStep()]), agent: 'faulty' });
    expect(await failure(workflowId)).toMatchObject({ type: 'hook_failed', message: 'agent faulty: its before_tool hook threw: hook bug' });
  });

  it('a requiresConfirmation rule that throws fails the run with hook_failed, naming the tool', async () => {
    const { workflowId } = await suite.agents.start({ ...scriptedInput([callStep({ name: 'shout', args: { text: 'boom' } }), finalStep()]), agent: 'faulty' });
    expect(await failure(workflowId)).toMatchObject({ type: 'hook_failed', message: 'agent faulty: requiresConfirmation of tool shout threw: confirmation rule bug' });
  });

  it('a planner that declares itself synchronous but returns promises still runs to its answer', async () => {
    const script = [callStep({ name: 'echo', args: { text: 'a' } }), callStep({ name: 'add', args: { a: 1, b: 2 } }), finalStep('ok')];
    const { workflowId } = await suite.agents.start({ ...scriptedInput(script), agent: 'hasty' });
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'ok' } });
    const page = await suite.agents.events(workflowId);
    expect(page.events.filter((e) => e.type === 'tool_result').map((e) => e.type === 'tool_result' && e.status)).toEqual(['ok', 'ok']);
  });

  it('a planner that declares itself synchronous and throws fails the run with planner_failed', async () => {
    const { workflowId } = await suite.agents.start({ ...scriptedInput([callStep({ name: 'echo', args: { text: 'a' } })]), agent: 'scripted' });
    expect(await failure(workflowId)).toMatchObject({ type: 'planner_failed', message: expect.stringContaining('scripted planner ran out of steps') });
  });

  it('the same agent runs normally when its code does not throw', async () => {
    const { workflowId } = await suite.agents.start({ ...scriptedInput([callStep({ name: 'shout', args: { text: 'hi' } }), finalStep('ok')]), agent: 'faulty' });
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'ok' } });
  });
});
