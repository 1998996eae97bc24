/**
 * Budgets count work, not downtime. A rewind resets a run to a turn boundary, and the task that
 * records the previous turn's outputs runs again at today's time: the run saw the whole time
 * since it first ran as spent, so any run older than its time budget could only be rewound into
 * a forced final answer. A fork starts from the state at the boundary, with the same clock.
 */
import type { RunEvent } from '../../contracts';
import { forkRun } from '../../worker/fork';
import { agentSuite } from '../support/agent-suite';
import { callStep, finalStep, scriptedInput } from '../support/scripts';
import { forkBundleOption } from '../support/test-env';

const suite = agentSuite('rewind-budget');

/** The time budget of the runs: their three echo turns take a fraction of it, even on a busy machine. */
const budgetMs = 10_000;

/** Three tool turns and a final answer, with a time budget some seconds long. */
const shortBudgetRun = () =>
  scriptedInput([1, 2, 3].map((n) => callStep({ name: 'echo', args: { text: `t${n}` } })).concat(finalStep('three turns')), { policy: { timeBudgetMs: budgetMs } });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function credited(events: readonly RunEvent[]): number {
  return events.filter((e) => e.type === 'budget_credited').length;
}

/**
 * Both tests' runs, started together so that they grow older than their budget during one wait:
 * each test first waits until its run is older than the budget.
 */
let runs: { readonly workflowId: string; readonly startedBy: number }[] = [];
beforeAll(async () => {
  runs = await Promise.all(
    [0, 1].map(async () => {
      const { workflowId } = await suite.agents.start(shortBudgetRun());
      return { workflowId, startedBy: Date.now() };
    }),
  );
});

/** The run of test `index` once it is older than its time budget, after its first result. */
async function olderThanBudget(index: number): Promise<string> {
  const { workflowId, startedBy } = runs[index] as (typeof runs)[number];
  const first = await suite.agents.result(workflowId);
  expect(first).toMatchObject({ status: 'completed', final: { text: 'three turns' } });
  await sleep(Math.max(0, startedBy + budgetMs + 1_000 - Date.now()));
  return workflowId;
}

describe('a time budget after a rewind or a fork', () => {
  it('a run rewound after its time budget has passed finishes its turns without a forced final answer; the wait shows as credited', async () => {
    const workflowId = await olderThanBudget(0);

    await suite.agents.rewind(workflowId, { toTurn: 2, reason: 'again, later' });
    const again = await suite.agents.result(workflowId);
    expect(again).toMatchObject({ status: 'completed', final: { text: 'three turns' } });
    expect(again.finalizeReason).toBeUndefined();
    expect(again.cost.timeMs.used).toBeLessThan(budgetMs);
    const { events } = await suite.agents.events(workflowId, 0, 1000);
    expect(events.some((e) => e.type === 'finalize_requested')).toBe(false);
    expect(credited(events)).toBe(1);
    // The outputs of turn 1 were recorded again by the reset, many seconds after the echo ended:
    // that wait is not the tool's duration either.
    const durations = events.flatMap((e) => (e.type === 'tool_result' ? [[e.toolCallId, e.durationMs < budgetMs]] : []));
    expect(durations).toEqual([
      ['call_0_0', true],
      ['call_1_0', true],
      ['call_2_0', true],
    ]);
  });

  it('a fork of a run older than its time budget starts with the time the run had used at the boundary', async () => {
    const workflowId = await olderThanBudget(1);
    const fork = await forkRun(suite.agents.client, workflowId, { toTurn: 1, ...(await forkBundleOption()) });
    const result = await suite.agents.result(fork.workflowId);
    expect(result).toMatchObject({ status: 'completed', final: { text: 'three turns' } });
    expect(result.finalizeReason).toBeUndefined();
    expect(result.cost.timeMs.used).toBeLessThan(budgetMs);
  });
});
