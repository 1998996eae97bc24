/**
 * The time budget running out mid-turn with sequential calls: the call that runs is cancelled,
 * every later call of the turn is answered (cancelled, never left waiting for an approval that
 * can no longer come), and the planner gets its Finalize turn.
 */
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';

const suite = agentSuite('budget-cancellation');

describe('time budget with parallelToolCalls: false', () => {
  it('cancels the running call, answers the next one (which needs approval) and finalizes', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'sleep', args: { ms: 30_000 } }, { name: 'echo', args: { text: 'later' } }), finalStep('finalized')], {
        policy: { timeBudgetMs: 1_500, parallelToolCalls: false },
        confirmation: { tools: ['echo'] },
      }),
    );
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', finalizeReason: 'time_budget' });
    const events = (await suite.agents.events(workflowId, 0, 1000)).events;
    const results = events.filter((e) => e.type === 'tool_result').map((e) => [e.toolCallId, (e as { status: string }).status]);
    expect(results).toEqual([
      ['call_0_0', 'cancelled'],
      ['call_0_1', 'cancelled'],
    ]);
    expect(events.some((e) => e.type === 'approval_requested' && e.toolCallId === 'call_0_1')).toBe(false);
  });
});
