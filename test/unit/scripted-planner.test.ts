import type { JsonValue, PlanResult } from '../../contracts';
import { recordAgentState } from '../../workflows/run/agent-state';
import type { PlannerContext } from '../../workflows/agents/planner';
import { createScriptedPlanner } from '../../workflows/planners/scripted';

function context(state: Record<string, JsonValue> = {}): PlannerContext {
  return { runId: 'r', workflowId: 'w', agent: 'scripted', turn: 0, transcriptEpoch: 0, state: recordAgentState(state), sessionState: {}, emitNote: () => {}, recordModelUsage: () => {} };
}

describe('scripted planner', () => {
  const steps = [
    { type: 'tool_calls', calls: [{ name: 'echo', args: { text: 'a' } }] },
    { type: 'final', text: 'done' },
  ];

  it('returns step N on turn N and keeps its position in planner state', async () => {
    const state: Record<string, JsonValue> = {};
    const planner = createScriptedPlanner({ steps });
    const first = (await planner.planStart({ messages: [] }, context(state))) as PlanResult;
    expect(first.type).toBe('tool_calls');
    expect(state['scripted.step']).toBe(1);
    const second = await planner.planResume({ messages: [], toolOutputs: [], lastOutputs: [] }, context(state));
    expect(second).toEqual({ type: 'final', response: { text: 'done' } });
  });

  it('answers a Finalize turn with the finalize text', async () => {
    const planner = createScriptedPlanner({ steps, finalizeText: 'bye: {reason}' });
    const plan = await planner.planResume(
      { messages: [], toolOutputs: [], lastOutputs: [], finalize: { reason: 'tool_cap', message: 'm' } },
      context(),
    );
    expect(plan).toMatchObject({ type: 'final', response: { text: 'bye: tool_cap' } });
  });

  it('fails loudly when the script runs out', () => {
    const planner = createScriptedPlanner({ steps: [{ type: 'final', text: 'x' }] });
    expect(() => planner.planStart({ messages: [] }, context({ 'scripted.step': 1 }))).toThrow(/ran out of steps: script has 1/);
  });

  it('rejects invalid options naming the field', () => {
    expect(() => createScriptedPlanner({ steps: [{ type: 'tool_calls', calls: [] }] })).toThrow(/steps\.0\.calls/);
    expect(() => createScriptedPlanner(undefined)).toThrow(/invalid scripted planner options/);
  });
});
