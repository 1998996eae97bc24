import type { WorkflowFailedError } from '@temporalio/client';
import type { AgentClient } from '../../client/agent-client';
import type { RunEvent, RunResult, ToolCall } from '../../contracts';
import { replayHistoryJson } from '../../worker/replay';
import { agentSuite } from '../support/agent-suite';
import { contextStep, mostInFlight, scriptedInput, stepCall } from '../support/scripts';
import type { ScriptStep } from '../../workflows/planners/scripted';
import { workflowBundleOption } from '../support/test-env';
import { waitFor } from '../support/wait';

const suite = agentSuite('call-graph');

/** A tool_calls step of dependency-aware calls. */
function plan(...calls: ToolCall[]): ScriptStep {
  return { type: 'tool_calls', calls };
}

const step = stepCall;

interface Outcome {
  toolCallId: string;
  status: string;
  result?: { label: string; inputs: Record<string, unknown> };
  errorType?: string;
  errorMessage?: string;
}

async function runToEnd(input: Parameters<AgentClient['start']>[0]): Promise<{ result: RunResult; events: RunEvent[]; workflowId: string; outcomes: Map<string, Outcome> }> {
  const { workflowId } = await suite.agents.start(input);
  const result = await suite.agents.result(workflowId);
  const events = (await suite.agents.events(workflowId, 0, 1000)).events;
  const view = result.final?.structured as { outputs: Outcome[] } | undefined;
  return { result, events, workflowId, outcomes: new Map((view?.outputs ?? []).map((o) => [o.toolCallId, o])) };
}

/** Seq of the first event of a type for a call. */
function seqOf(events: RunEvent[], type: 'tool_call' | 'tool_result', id: string): number {
  const e = events.find((x) => x.type === type && x.toolCallId === id);
  if (!e) throw new Error(`no ${type} for ${id}`);
  return e.seq;
}

async function scheduledSteps(workflowId: string): Promise<string[]> {
  const history = await suite.env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => (e.activityTaskScheduledEventAttributes?.activityId ? [e.activityTaskScheduledEventAttributes.activityId] : []));
}

describe('dependency-aware tool calls on a real dev server', () => {
  it('starts each call as soon as its dependencies succeeded, and passes their outputs', async () => {
    // a -> (b, c) -> d: b and c run together once a is done; d waits for both.
    const { result, events, outcomes, workflowId } = await runToEnd(
      scriptedInput([
        plan(step('d', 0, { dependsOn: ['b', 'c'] }), step('b', 300, { dependsOn: ['a'] }), step('c', 600, { dependsOn: ['a'] }), step('a', 200)),
        contextStep,
      ]),
    );
    expect(result.status).toBe('completed');
    expect(seqOf(events, 'tool_call', 'b')).toBeGreaterThan(seqOf(events, 'tool_result', 'a'));
    expect(seqOf(events, 'tool_call', 'c')).toBeGreaterThan(seqOf(events, 'tool_result', 'a'));
    // b and c were in flight together.
    expect(seqOf(events, 'tool_call', 'c')).toBeLessThan(seqOf(events, 'tool_result', 'b'));
    expect(seqOf(events, 'tool_call', 'd')).toBeGreaterThan(Math.max(seqOf(events, 'tool_result', 'b'), seqOf(events, 'tool_result', 'c')));
    expect(outcomes.get('d')?.result?.inputs).toEqual({ b: { label: 'b', inputs: { a: { label: 'a', inputs: {} } } }, c: { label: 'c', inputs: { a: { label: 'a', inputs: {} } } } });
    // The plan event shows the graph; the transcript keeps plan order.
    const planEvent = events.find((e) => e.type === 'plan');
    expect(planEvent).toMatchObject({ toolCalls: [{ toolCallId: 'd', dependsOn: ['b', 'c'] }, { toolCallId: 'b', dependsOn: ['a'] }, { toolCallId: 'c', dependsOn: ['a'] }, { toolCallId: 'a' }] });
    expect([...outcomes.keys()]).toEqual(['d', 'b', 'c', 'a']);
    // Replays against the current code.
    expect(await replayHistoryJson(JSON.parse(await suite.agents.exportHistory(workflowId)), await workflowBundleOption())).toMatchObject({ ok: true });
  });

  it('does not run a call whose dependency failed, and says which one', async () => {
    const { outcomes, workflowId } = await runToEnd(
      scriptedInput([plan(step('a', 0, { fail: true }), step('b', 0, { dependsOn: ['a'] }), step('c', 0, { dependsOn: ['b'] }), step('free', 0)), contextStep]),
    );
    expect(outcomes.get('a')).toMatchObject({ status: 'error', errorType: 'tool_failed' });
    expect(outcomes.get('b')).toMatchObject({ status: 'error', errorType: 'dependency_failed' });
    expect(outcomes.get('b')?.errorMessage).toContain('depends on a (step), which ended with tool_failed: step a failed as asked');
    expect(outcomes.get('c')?.errorMessage).toContain('depends on b (step), which ended with dependency_failed');
    expect(outcomes.get('free')).toMatchObject({ status: 'ok' });
    expect((await scheduledSteps(workflowId)).sort()).toEqual(['turn-0/a', 'turn-0/free']);
  });

  it('refuses unknown dependencies and cycles before anything runs for them', async () => {
    const { outcomes, workflowId } = await runToEnd(
      scriptedInput([plan(step('x', 0, { dependsOn: ['nope'] }), step('p', 0, { dependsOn: ['q'] }), step('q', 0, { dependsOn: ['p'] }), step('r', 0, { dependsOn: ['q'] }), step('ok', 0)), contextStep]),
    );
    expect(outcomes.get('x')?.errorMessage).toBe('not run: dependsOn names "nope", which is not a call of this plan');
    expect(outcomes.get('p')?.errorMessage).toBe('not run: dependency cycle: p -> q -> p');
    expect(outcomes.get('q')?.errorMessage).toBe('not run: dependency cycle: p -> q -> p');
    expect(outcomes.get('r')).toMatchObject({ errorType: 'dependency_failed' });
    expect(outcomes.get('ok')).toMatchObject({ status: 'ok' });
    expect(await scheduledSteps(workflowId)).toEqual(['turn-0/ok']);
  });

  it('runs alternatives that share an output path: the first success wins, the others are cancelled', async () => {
    const { result, events, outcomes } = await runToEnd(
      scriptedInput([
        plan(step('slow', 20_000, { outputPath: 'pick' }), step('fast', 100, { outputPath: 'pick' }), step('broken', 0, { outputPath: 'pick', fail: true }), step('after', 0, { dependsOn: ['slow'] })),
        plan(step('again', 0, { outputPath: 'pick' })),
        contextStep,
      ]),
    );
    expect(result.status).toBe('completed');
    expect(outcomes.get('fast')).toMatchObject({ status: 'ok' });
    expect(outcomes.get('broken')).toMatchObject({ status: 'error', errorType: 'tool_failed' });
    expect(outcomes.get('slow')).toMatchObject({ status: 'cancelled', errorMessage: 'cancelled: its alternative fast wrote output path pick first' });
    // Depending on a call that lost its path means depending on the winner.
    expect(outcomes.get('after')?.result?.inputs).toEqual({ fast: { label: 'fast', inputs: {} } });
    // Paths are write-once, also in later turns.
    expect(outcomes.get('again')).toMatchObject({ status: 'error', errorType: 'output_conflict' });
    expect(outcomes.get('again')?.errorMessage).toContain('output path pick was already written by call fast (turn 0)');
    expect(events.filter((e) => e.type === 'output_written')).toMatchObject([{ path: 'pick', toolCallId: 'fast', turn: 0 }]);
    const view = result.final?.structured as { paths: Record<string, unknown> };
    expect(view.paths).toEqual({ pick: { toolCallId: 'fast', value: { label: 'fast', inputs: {} } } });
  });

  it('keeps at most maxConcurrentToolCalls tool activities in flight', async () => {
    const { events, outcomes } = await runToEnd(
      scriptedInput([plan(step('a', 300), step('b', 300), step('c', 300), step('d', 300), step('e', 0, { dependsOn: ['a'] })), contextStep], {
        policy: { maxConcurrentToolCalls: 2 },
      }),
    );
    expect(mostInFlight(events)).toBe(2);
    expect([...outcomes.values()].every((o) => o.status === 'ok')).toBe(true);
  });

  it('honours dependencies when calls run one after another', async () => {
    const { events } = await runToEnd(
      scriptedInput([plan(step('b', 0, { dependsOn: ['a'] }), step('a', 0), step('c', 0)), contextStep], { policy: { parallelToolCalls: false } }),
    );
    const order = events.filter((e) => e.type === 'tool_call').map((e) => (e as { toolCallId: string }).toolCallId);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('withdraws an alternative waiting for approval once another one won', async () => {
    const { workflowId } = await suite.agents.start(
      scriptedInput([
        plan({ id: 'big', name: 'transfer', args: { to: 'acme', amount: 500 }, outputPath: 'paid' }, step('small', 3000, { outputPath: 'paid' })),
        contextStep,
      ]),
    );
    await waitFor('the approval request', async () => ((await suite.agents.pendingInputs(workflowId)).approvals.length ? true : undefined));
    const result = await suite.agents.result(workflowId);
    const view = result.final?.structured as unknown as { outputs: Outcome[]; paths: Record<string, { toolCallId: string }> };
    expect(view.outputs.find((o) => o.toolCallId === 'big')).toMatchObject({ status: 'cancelled', errorMessage: 'cancelled: its alternative small wrote output path paid first' });
    expect(view.paths.paid?.toolCallId).toBe('small');
    expect((await suite.agents.pendingInputs(workflowId)).approvals).toEqual([]);
  });

  it('holds dependent calls while the run is paused, and goes on after resume', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([plan(step('a', 1000), step('b', 0, { dependsOn: ['a'] })), contextStep]));
    await waitFor('a to start', async () => ((await suite.agents.events(workflowId, 0, 100)).events.some((e) => e.type === 'tool_call') ? true : undefined));
    await suite.agents.pause(workflowId, { reason: 'look first' });
    await waitFor('the pause', async () => ((await suite.agents.status(workflowId)).status === 'paused' ? true : undefined));
    const whilePaused = (await suite.agents.events(workflowId, 0, 1000)).events;
    expect(whilePaused.some((e) => e.type === 'tool_call' && e.toolCallId === 'b')).toBe(false);
    await suite.agents.resume(workflowId);
    const result = await suite.agents.result(workflowId);
    const view = result.final?.structured as unknown as { outputs: Outcome[] };
    expect(view.outputs.map((o) => [o.toolCallId, o.status])).toEqual([
      ['a', 'ok'],
      ['b', 'ok'],
    ]);
    const events = (await suite.agents.events(workflowId, 0, 1000)).events;
    expect(seqOf(events, 'tool_call', 'b')).toBeGreaterThan(events.find((e) => e.type === 'resumed')!.seq);
  });

  it('answers every call of a graph when the run is killed mid-turn', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([plan(step('a', 30_000), step('b', 0, { dependsOn: ['a'] })), contextStep]));
    await waitFor('a to start', async () => ((await suite.agents.events(workflowId, 0, 100)).events.some((e) => e.type === 'tool_call') ? true : undefined));
    await suite.agents.kill(workflowId, { reason: 'enough' });
    const result = await suite.agents.result(workflowId);
    expect(result.status).toBe('terminated');
    const events = (await suite.agents.events(workflowId, 0, 1000)).events;
    const results = events.filter((e) => e.type === 'tool_result') as Extract<RunEvent, { type: 'tool_result' }>[];
    expect(results.map((r) => [r.toolCallId, r.status])).toEqual([
      ['a', 'cancelled'],
      ['b', 'cancelled'],
    ]);
    expect(await replayHistoryJson(JSON.parse(await suite.agents.exportHistory(workflowId)), await workflowBundleOption())).toMatchObject({ ok: true });
  });

  it('refuses a plan with a malformed output path, naming it', async () => {
    const { workflowId } = await suite.agents.start(scriptedInput([plan(step('a', 0, { outputPath: 'has space' })), contextStep]));
    const failure = await suite.agents.result(workflowId).then(
      () => undefined,
      (err: unknown) => err as WorkflowFailedError,
    );
    expect(failure?.cause?.message).toContain('steps.0.calls.0.outputPath: an output path is dot-separated names');
  });
});
