/**
 * The time budget running out mid-turn with sequential calls: the call that runs is cancelled,
 * every later call of the turn is answered (cancelled, never left waiting for an approval that
 * can no longer come), and the planner gets its Finalize turn.
 */
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { waitFor } from '../support/wait';

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

/** The run's budget timers (started, cancelled, fired) and the human decisions, in history order. */
async function timerEvents(workflowId: string): Promise<string[]> {
  const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) =>
    e.timerStartedEventAttributes
      ? [`started ${Number(e.timerStartedEventAttributes.startToFireTimeout?.seconds ?? 0) < 3 ? 'short' : 'long'}`]
      : e.timerCanceledEventAttributes
        ? ['cancelled']
        : e.timerFiredEventAttributes
          ? ['fired']
          : e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'decideCall'
            ? ['decided']
            : [],
  );
}

async function toolStarted(workflowId: string, toolCallId: string): Promise<void> {
  await waitFor(`${toolCallId} to start`, async () =>
    (await suite.agents.events(workflowId, 0, 1000)).events.some((e) => e.type === 'tool_call' && e.toolCallId === toolCallId) ? true : undefined,
  );
}

describe('the budget watch follows the run', () => {
  it('a budget cut while a tool runs cancels it at the new deadline', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'sleep', args: { ms: 60_000 } }), finalStep('finalized')], { policy: { timeBudgetMs: 600_000 } }),
    );
    await toolStarted(workflowId, 'call_0_0');
    const cost = await suite.agents.setBudget(workflowId, { timeBudgetMs: 1_000 });
    expect(cost.timeMs.max).toBe(1_000);
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', finalizeReason: 'time_budget' });
    const events = (await suite.agents.events(workflowId, 0, 1000)).events;
    expect(events.filter((e) => e.type === 'tool_result').map((e) => (e as { status: string }).status)).toEqual(['cancelled']);
    // The 10-minute timer gives way to the one of the new budget (armed in the update's handler,
    // before the old one's cancellation goes out in the same task), which fires.
    expect(await timerEvents(workflowId)).toEqual(['started long', 'started short', 'cancelled', 'fired']);
  });

  it('after a human wait, the rest of the budget is armed again and still cancels a long tool', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([callStep({ name: 'sleep', args: { ms: 60_000 } }), finalStep('finalized')], {
        policy: { timeBudgetMs: 2_000 },
        confirmation: { tools: ['sleep'] },
      }),
    );
    await waitFor('the approval request', async () => ((await suite.agents.pendingInputs(workflowId)).approvals.length === 1 ? true : undefined));
    // Longer than the whole budget: waiting for a human does not count.
    await new Promise((r) => setTimeout(r, 2_500));
    await suite.agents.decide(workflowId, { decision: 'approve', toolCallId: 'call_0_0' });
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', finalizeReason: 'time_budget' });
    const events = (await suite.agents.events(workflowId, 0, 1000)).events;
    expect(events.filter((e) => e.type === 'tool_result').map((e) => (e as { status: string }).status)).toEqual(['cancelled']);
    expect(result.cost.timeMs.used).toBeGreaterThanOrEqual(2_000);
    // The wait began in the run's first task, which cancelled its timer before sending it. The
    // decision arms the rest of the budget (from inside the call's code; the timer belongs to the
    // run's scope), and that timer fires.
    expect(await timerEvents(workflowId)).toEqual(['decided', 'started short', 'fired']);
  });

  it('keeps watching after a call that waited for approval is withdrawn by its alternative', async () => {
    // The wait for `big`'s approval idles the run from inside that call's code, and `small`'s
    // win cancels the call's scope. The watch's own wait is not in that scope: it re-arms when
    // the run stops idling, and the next turn's long call is cancelled when the budget runs out.
    const { workflowId } = await suite.agents.start(
      scriptedInput(
        [
          { type: 'tool_calls', calls: [{ id: 'big', name: 'transfer', args: { to: 'acme', amount: 500 }, outputPath: 'paid' }, { id: 'small', name: 'step', args: { label: 'small', ms: 1_000 }, outputPath: 'paid' }] },
          callStep({ name: 'sleep', args: { ms: 60_000 } }),
          finalStep('finalized'),
        ],
        { policy: { timeBudgetMs: 3_000 } },
      ),
    );
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', finalizeReason: 'time_budget' });
    const events = (await suite.agents.events(workflowId, 0, 1000)).events;
    expect(events.filter((e) => e.type === 'tool_result').map((e) => [e.toolCallId, (e as { status: string }).status])).toEqual([
      ['small', 'ok'],
      ['big', 'cancelled'],
      ['call_1_0', 'cancelled'],
    ]);
  });
});
