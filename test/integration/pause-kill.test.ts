import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { waitFor } from '../support/wait';

const suite = agentSuite('pause-kill');

describe('a pause waiting for its safe point when a kill arrives', () => {
  it('says the run is being killed, not that it ended while running', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'sleep', args: { ms: 600_000 } }), finalStep()]));
    await waitFor('the sleep call', async () => ((await suite.agents.events(workflowId)).events.some((e) => e.type === 'tool_call') ? true : undefined));
    const pause = suite.agents.pause(workflowId, { reason: 'look', timeoutMs: 60_000 });
    await waitFor('the pause request', async () => ((await suite.agents.status(workflowId)).status === 'pausing' ? true : undefined));
    await suite.agents.signal(workflowId, 'kill', { reason: 'stop now' });
    await expect(pause).rejects.toThrow('the run is being killed (stop now) and will not pause');
    expect((await suite.agents.result(workflowId)).status).toBe('terminated');
  });
});
