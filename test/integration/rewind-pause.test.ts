/**
 * Rewind and fork meet pause: a run paused after a turn and resumed begins its next turn in the
 * task that took the resume. A rewind to that turn resets to the start of that task, and a
 * clean rewind drops the updates recorded after the reset point, the resume among them: the
 * rewound run stayed paused; a fork's replay never reached the boundary.
 */
import { forkRun } from '../../worker/fork';
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { forkBundleOption } from '../support/test-env';
import { waitFor } from '../support/wait';

const suite = agentSuite('rewind-pause');

/** A run paused after its first turn and resumed, then completed. */
async function pausedAndResumedRun(): Promise<string> {
  const { workflowId } = await suite.agents.start(
    scriptedInput([callStep({ name: 'sleep', args: { ms: 1_000 } }), callStep({ name: 'echo', args: { text: 'after the pause' } }), finalStep('done')]),
  );
  await waitFor('the sleep call', async () => ((await suite.agents.status(workflowId)).pendingCalls.length > 0 ? true : undefined));
  expect(await suite.agents.pause(workflowId, { reason: 'look first' })).toMatchObject({ status: 'paused', turn: 0 });
  await suite.agents.resume(workflowId, 'go on');
  expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'done' } });
  return workflowId;
}

describe('rewind and fork of a run that was paused and resumed', () => {
  it('a rewind to the turn the resume began runs again instead of staying paused', async () => {
    const workflowId = await pausedAndResumedRun();
    await suite.agents.rewind(workflowId, { toTurn: 1, reason: 'again' });
    expect(await suite.agents.result(workflowId)).toMatchObject({ status: 'completed', final: { text: 'done' } });
  });

  it('a fork at that turn starts and completes', async () => {
    const workflowId = await pausedAndResumedRun();
    const fork = await forkRun(suite.agents.client, workflowId, { toTurn: 1, ...(await forkBundleOption()) });
    expect(await suite.agents.result(fork.workflowId)).toMatchObject({ status: 'completed', final: { text: 'done' } });
  });
});
