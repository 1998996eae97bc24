import type { RunEvent } from '../../contracts';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { callStep, finalStep, scriptedInput, type Observation } from '../support/scripts';
import { agentSuite } from '../support/agent-suite';
import { carriedInputMaxBytes } from '../../workflows/state/carry';

const suite = agentSuite('long-runs');

describe('runs of any length', () => {
  it('a 300-turn run continues as new and finishes with one consistent event log', async () => {
    const turns = 300;
    const steps: ScriptStep[] = [...Array.from({ length: turns }, (_, i) => callStep({ name: 'add', args: { a: i, b: 1 } })), finalStep('all turns done')];
    const { workflowId } = await suite.agents.start(
      scriptedInput(steps, { policy: { maxIterations: 1_000, maxToolCalls: 1_000, continueAsNewAfterEvents: 600 }, sessionState: { counter: 1 } }),
    );
    // Follow the whole run live, across every continue-as-new.
    const seen: RunEvent[] = [];
    for await (const event of suite.agents.follow(workflowId)) seen.push(event);
    const result = await suite.agents.result(workflowId);

    expect(result).toMatchObject({ status: 'completed', iterations: turns, sessionState: { counter: 1 } });
    expect(result.final?.text).toBe('all turns done');
    expect(result.cost.toolCalls.used).toBe(turns);
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
    expect(seen.filter((e) => e.type === 'run_started')).toHaveLength(1);
    expect(seen.filter((e) => e.type === 'tool_result')).toHaveLength(turns);
    expect(seen.at(-1)).toMatchObject({ type: 'status_changed', to: 'completed' });
    expect(result.lastEventSeq).toBe(seen.length);

    // The final execution was continued from earlier ones; its history stays short.
    const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
    expect(history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId).toBeTruthy();
    expect(history.events?.length).toBeLessThan(1_000);
    // Old results were compacted, the newest kept: the planner saw every output.
    const outputs = result.final?.structured as unknown as Observation[];
    expect(outputs).toHaveLength(turns);
    expect(outputs.at(-1)).toMatchObject({ status: 'ok', result: { sum: turns } });
    expect(outputs[0]).toMatchObject({ status: 'ok', resultOmitted: true });
  });

  it('a run with maximal tool results continues as new within the payload bound and completes', async () => {
    // Every turn: 16 parallel calls, each with a result just under the 64 KB workflow budget.
    // Carried whole, five such turns pass Temporal's 2 MB payload limit and wedge the run.
    const turn = callStep(...Array.from({ length: 16 }, () => ({ name: 'blob', args: { bytes: 60_000 } })));
    const { workflowId } = await suite.agents.start(
      scriptedInput([turn, turn, turn, turn, turn, finalStep('survived')], { policy: { maxToolCalls: 1_000, continueAsNewAfterEvents: 40 } }),
    );
    const seen: RunEvent[] = [];
    for await (const event of suite.agents.follow(workflowId)) seen.push(event);
    const result = await suite.agents.result(workflowId);
    expect(result).toMatchObject({ status: 'completed', final: { text: 'survived' } });
    expect(result.cost.toolCalls.used).toBe(80);
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));

    // Walk the chain of executions back from the last: each carried at most the bound.
    const carried: number[] = [];
    let runId: string | undefined = (await suite.env.client.workflow.getHandle(workflowId).describe()).runId;
    while (runId) {
      const history = await suite.env.client.workflow.getHandle(workflowId, runId).fetchHistory();
      const next = history.events?.find((e) => e.workflowExecutionContinuedAsNewEventAttributes)?.workflowExecutionContinuedAsNewEventAttributes;
      if (next) carried.push(next.input?.payloads?.[0]?.data?.length ?? 0);
      runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    }
    expect(carried.length).toBeGreaterThanOrEqual(4);
    for (const bytes of carried) expect(bytes).toBeLessThanOrEqual(carriedInputMaxBytes);
  });

  it('a 5 MB tool result is omitted from workflow payloads with a marker the planner sees', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([callStep({ name: 'blob', args: { bytes: 5_000_000 } }), finalStep()]));
    const result = await suite.agents.result(workflowId);
    const [output] = result.final?.structured as unknown as Observation[];
    expect(output).toMatchObject({ status: 'ok', resultOmitted: true });
    expect(output?.resultBytes).toBeGreaterThan(5_000_000);
    const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
    const completed = history.events?.find((e) => e.activityTaskCompletedEventAttributes);
    const bytes = completed?.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data?.length ?? 0;
    expect(bytes).toBeLessThan(2_000);
  });
});
