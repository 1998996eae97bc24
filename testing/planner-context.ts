import type { JsonValue } from '../contracts';
import { recordAgentState } from '../workflows/run/agent-state';
import type { PlannerContext } from '../workflows/agents/planner';

/** What {@link plannerContext} may be given; everything else gets a neutral default. */
export interface PlannerContextOptions extends Partial<Omit<PlannerContext, 'state'>> {
  /** The planner's own durable state, as a record you can inspect after the call. */
  readonly state?: Record<string, JsonValue>;
}

/**
 * A {@link PlannerContext} for unit-testing a planner without a server: call
 * `planner.planStart(input, plannerContext({ sessionState }))` and assert on the plan.
 *
 * @example
 * declare const myPlanner: Planner;
 * const plan = await myPlanner.planStart({ messages: [{ role: 'user', content: 'Add AAPL' }] }, plannerContext({ sessionState: { watchlist: [] } }));
 */
export function plannerContext(options: PlannerContextOptions = {}): PlannerContext {
  const { state, ...rest } = options;
  return {
    runId: 'test-run',
    workflowId: 'test-workflow',
    agent: 'test-agent',
    turn: 0,
    transcriptEpoch: 0,
    sessionState: {},
    emitNote: () => {},
    recordModelUsage: () => {},
    ...rest,
    state: recordAgentState(state ?? {}),
  };
}
